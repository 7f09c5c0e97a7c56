/**
 * Sub-accounts (account sessions): the list, creation (the new key and SMTP credentials shown
 * once: the dashboard's API path hides them on every later read), block (confirmed) and unblock.
 * `#/subaccounts/<id>` marks that sub-account's row: the page names elsewhere link to.
 */
import { useState } from 'preact/hooks';
import { formatNs } from '../format.js';
import { confirmed, CopyButton, EmptyState, ErrorNote, html, Status, TableScroll, useApp, useLoad } from '../lib.js';
import { useMarkedRow } from './marked-row.js';

/** A sub-account as the API answers it (keys hidden after creation). */
export interface SubAccount {
  id: number;
  name: string;
  apiKey: string | null;
  blocked: boolean;
  block_reason?: string;
  created: number;
  smtpAuths: { id: number; username: string; password: string | null }[];
}

/** The key and credentials of a sub-account just created. */
const Created = ({ created }: { created: SubAccount }) =>
  html`<div class="created" role="region" aria-labelledby="created-title">
    <h2 id="created-title">Sub-account “${created.name}” created</h2>
    <p>Copy its API key and SMTP credentials now: they are not shown again.</p>
    <dl class="facts">
      <dt>API key</dt>
      <dd>
        <code data-testid="new-api-key">${created.apiKey}</code>
        <${CopyButton} text=${created.apiKey ?? ''} label="API key" />
      </dd>
      ${created.smtpAuths.map(
        (auth) =>
          html`<dt>SMTP username</dt>
            <dd><code>${auth.username}</code> <${CopyButton} text=${auth.username} label="SMTP username" /></dd>
            <dt>SMTP password</dt>
            <dd><code>${auth.password}</code> <${CopyButton} text=${auth.password ?? ''} label="SMTP password" /></dd>`,
      )}
    </dl>
  </div>`;

/** The sub-accounts page; `arg` is the id of the sub-account whose row is marked. */
export function SubAccounts({ arg }: { arg?: string | undefined }) {
  const { api } = useApp();
  const list = useLoad(() => api.call<SubAccount[]>('GET', '/account/subaccount', { query: { limit: '100' } }), []);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<SubAccount | undefined>();
  const [error, setError] = useState<string | undefined>();
  const marked = useMarkedRow(arg, list.data !== undefined);
  const create = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      setCreated(await api.call<SubAccount>('POST', '/account/subaccount', { body: { name: name.trim() } }));
      setName('');
      list.reload();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  const setBlocked = async (sub: SubAccount, blocked: boolean) => {
    setError(undefined);
    try {
      await api.call('PUT', `/account/subaccount/${sub.id}`, {
        body: blocked ? { blocked, block_reason: 'blocked from the dashboard' } : { blocked },
      });
      list.reload();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  return html`<section aria-labelledby="subaccounts-title">
    <h1 id="subaccounts-title">Sub-accounts</h1>
    <form class="inline" onSubmit=${create} aria-label="Create a sub-account">
      <label
        >Name
        <input
          type="text"
          required
          maxlength="100"
          value=${name}
          onInput=${(e: Event) => setName((e.target as HTMLInputElement).value)}
      /></label>
      <button type="submit">Create sub-account</button>
    </form>
    <${ErrorNote} message=${error ?? list.error} />
    ${created && html`<${Created} created=${created} />`}
    ${list.loading && html`<${Status}>Loading sub-accounts…</${Status}>`}
    ${
      list.data?.length === 0 &&
      html`<${EmptyState}>No sub-accounts yet. Create one above: each has its own API key, SMTP credentials and
        sending domains.</${EmptyState}>`
    }
    ${
      list.data &&
      list.data.length > 0 &&
      html`<${TableScroll}><table class="list">
        <caption>
          Sub-accounts
        </caption>
        <thead>
          <tr>
            <th scope="col">Id</th>
            <th scope="col">Name</th>
            <th scope="col">Created</th>
            <th scope="col">State</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          ${list.data.map(
            (s) =>
              html`<tr ...${marked(`${s.id}`)}>
                <td>${s.id}</td>
                <td>${s.name}</td>
                <td>${formatNs(s.created)}</td>
                <td>
                  ${s.blocked ? html`<span class="badge status-hard_bounced" title=${s.block_reason || 'blocked'}>blocked</span> ${s.block_reason ?? ''}` : html`<span class="badge status-delivered">active</span>`}
                </td>
                <td>
                  <div class="row-actions">
                    <a href=${`#/domains/${s.id}`} aria-label=${`Domains of ${s.name}`}>Domains</a>
                    <a href=${`#/suppressions/${s.id}`} aria-label=${`Suppressions of ${s.name}`}>Suppressions</a>
                    ${
                      s.blocked
                        ? html`<button
                            type="button"
                            class="secondary"
                            onClick=${() => setBlocked(s, false)}
                            aria-label=${`Unblock ${s.name}`}
                          >
                            Unblock
                          </button>`
                        : html`<button
                            type="button"
                            class="danger"
                            onClick=${() =>
                              confirmed(
                                `Block ${s.name}? Its API key and SMTP credentials stop sending until it is unblocked.`,
                                () => setBlocked(s, true),
                              )}
                            aria-label=${`Block ${s.name}`}
                          >
                            Block
                          </button>`
                    }
                  </div>
                </td>
              </tr>`,
          )}
        </tbody>
      </table></${TableScroll}>`
    }
  </section>`;
}
