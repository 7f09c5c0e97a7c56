/**
 * Suppressions of a sub-account (docs/suppressions.md): search by address and type, add, remove,
 * each with its type and the SMTP reply that caused it.
 */
import { useState } from 'preact/hooks';
import { formatNs, shownText } from '../format.js';
import { confirmed, EmptyState, ErrorNote, html, Status, TableScroll, useApp, useLoad } from '../lib.js';
import { useActAs } from './act-as.js';

interface Suppression {
  id: number;
  reason: number;
  email: string;
  smtp_error: string;
  created: number;
}

/** The types: wire name (create body, `type` filter) and label, in the order of `reason` numbers. */
const TYPES = [
  ['manual', 'Manual'],
  ['unsubscribe', 'Unsubscribe'],
  ['hardBounce', 'Hard bounce'],
  ['spamComplaint', 'Spam complaint'],
] as const;

const PAGE = 50;

/** The suppressions page. */
export function Suppressions({ subAccountId }: { subAccountId: string | undefined }) {
  const { api } = useApp();
  const { actAs, ready, picker, name: subAccountName } = useActAs('suppressions', subAccountId);
  const [search, setSearch] = useState({ text: '', type: '' });
  const [filters, setFilters] = useState(search);
  const [offset, setOffset] = useState(0);
  const [email, setEmail] = useState('');
  const [type, setType] = useState('manual');
  const [error, setError] = useState<string | undefined>();
  const list = useLoad(() => {
    if (!ready) return Promise.resolve([]);
    const query: Record<string, string> = { limit: String(PAGE), offset: String(offset) };
    if (filters.text.trim() !== '') query.search = filters.text.trim();
    if (filters.type !== '') query.type = filters.type;
    return api.call<Suppression[]>('GET', '/subaccount/suppression', { query, actAs });
  }, [actAs, ready, filters, offset]);
  const change = async (method: 'POST' | 'DELETE', body: unknown) => {
    setError(undefined);
    try {
      await api.call(method, '/subaccount/suppression', { body, actAs });
      list.reload();
      return true;
    } catch (failure) {
      setError((failure as Error).message);
      return false;
    }
  };
  const add = async (event: Event) => {
    event.preventDefault();
    if (await change('POST', { [type]: [{ email: email.trim() }] })) setEmail('');
  };
  const find = (event: Event) => {
    event.preventDefault();
    setOffset(0);
    setFilters({ ...search });
  };
  return html`<section aria-labelledby="suppressions-title">
    <h1 id="suppressions-title">Suppressions</h1>
    ${picker}
    ${
      ready &&
      html`<form class="inline" onSubmit=${add} aria-label="Add a suppression">
          <label
            >Address
            <input
              type="email"
              required
              value=${email}
              onInput=${(e: Event) => setEmail((e.target as HTMLInputElement).value)}
          /></label>
          <label
            >Type
            <select value=${type} onChange=${(e: Event) => setType((e.target as HTMLSelectElement).value)}>
              ${TYPES.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
            </select>
          </label>
          <button type="submit">Add suppression</button>
        </form>
        <form class="filters" role="search" aria-label="Search suppressions" onSubmit=${find}>
          <label
            >Address contains
            <input
              type="search"
              value=${search.text}
              onInput=${(e: Event) => setSearch({ ...search, text: (e.target as HTMLInputElement).value })}
          /></label>
          <label
            >Type
            <select
              value=${search.type}
              onChange=${(e: Event) => setSearch({ ...search, type: (e.target as HTMLSelectElement).value })}
            >
              <option value="">Any</option>
              ${TYPES.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
            </select>
          </label>
          <button type="submit">Search</button>
        </form>`
    }
    <${ErrorNote} message=${error ?? list.error} />
    ${list.loading && html`<${Status}>Loading suppressions…</${Status}>`}
    ${
      ready &&
      list.data?.length === 0 &&
      !list.loading &&
      (filters.text.trim() !== '' || filters.type !== '' || offset > 0
        ? html`<${EmptyState}>No suppressions match. Clear the search to see every suppressed address.</${EmptyState}>`
        : html`<${EmptyState}>
            No suppressed addresses${subAccountName ? ` in ${subAccountName}` : ''}. Addresses that hard-bounce,
            complain or unsubscribe are added here; add one above to stop mail to it.
          </${EmptyState}>`)
    }
    ${
      list.data &&
      list.data.length > 0 &&
      html`<${TableScroll}><table class="list">
        <caption>
          Suppressed addresses, oldest first
        </caption>
        <thead>
          <tr>
            <th scope="col">Address</th>
            <th scope="col">Type</th>
            <th scope="col">Reason</th>
            <th scope="col">Added</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          ${list.data.map(
            (s) =>
              html`<tr>
                <td>${shownText(s.email)}</td>
                <td>${TYPES[s.reason]?.[1] ?? s.reason}</td>
                <td>${s.smtp_error || '—'}</td>
                <td>${formatNs(s.created)}</td>
                <td>
                  <button
                    type="button"
                    class="danger"
                    aria-label=${`Remove ${s.email}`}
                    onClick=${() =>
                      confirmed(`Remove ${s.email} from the suppressions? Mail to it is sent again.`, () =>
                        change('DELETE', { suppressions: [{ email: s.email }] }),
                      )}
                  >
                    Remove
                  </button>
                </td>
              </tr>`,
          )}
        </tbody>
      </table></${TableScroll}>`
    }
    <div class="pager">
      ${offset > 0 && html`<button type="button" onClick=${() => setOffset(Math.max(0, offset - PAGE))}>Previous page</button>`}
      ${list.data?.length === PAGE && html`<button type="button" onClick=${() => setOffset(offset + PAGE)}>Next page</button>`}
    </div>
  </section>`;
}
