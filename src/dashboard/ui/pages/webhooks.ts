/**
 * Webhooks of the account (docs/webhooks.md): register (the signing secret shown once), turn a
 * webhook and each of its events on and off (and mailplane's `incident` switch: incidents opened or
 * resolved, docs/reputation.md), rotate the secret (shown once), delete; why and when mailplane
 * disabled a webhook that kept failing; its recent deliveries (webhook-deliveries.ts).
 */
import { useState } from 'preact/hooks';
import { formatNs } from '../format.js';
import { confirmed, CopyButton, EmptyState, ErrorNote, html, Status, useApp, useLoad } from '../lib.js';
import { RecentDeliveries } from './webhook-deliveries.js';

/** The event toggles of a webhook, with their labels, in the API's order. */
const TOGGLES = [
  ['processed', 'Processed'],
  ['delivered', 'Delivered'],
  ['dropped', 'Dropped'],
  ['softBounced', 'Soft bounce'],
  ['hardBounced', 'Hard bounce'],
  ['opened', 'Opened'],
  ['clicked', 'Clicked'],
  ['unsubscribed', 'Unsubscribed'],
  ['spam', 'Spam'],
  ['sent', 'Sent'],
  ['smtpDropped', 'SMTP dropped'],
  ['uniqueOpen', 'Unique open'],
  ['uniqueClick', 'Unique click'],
] as const;

interface Webhook {
  id: number;
  url: string;
  enabled: boolean;
  created: number;
  disabledReason: string | null;
  disabledAt: number | null;
  secret?: string;
  [toggle: string]: unknown;
}

/** The webhooks page. */
export function Webhooks() {
  const { api } = useApp();
  const list = useLoad(() => api.call<Webhook[]>('GET', '/account/webhook', { query: { limit: '100' } }), []);
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState<{ url: string; secret: string } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const run = async (work: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await work();
      list.reload();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  const create = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const made = await api.call<Webhook>('POST', '/account/webhook', { body: { url: url.trim(), enabled: true } });
      setSecret({ url: made.url, secret: made.secret ?? '' });
      setUrl('');
    });
  };
  const update = (hook: Webhook, body: Record<string, unknown>) =>
    run(async () => {
      const changed = await api.call<Webhook>('PUT', `/account/webhook/${hook.id}`, { body });
      if (changed.secret) setSecret({ url: changed.url, secret: changed.secret });
    });
  return html`<section aria-labelledby="webhooks-title">
    <h1 id="webhooks-title">Webhooks</h1>
    <form class="inline" onSubmit=${create} aria-label="Register a webhook">
      <label
        >Endpoint URL
        <input
          type="url"
          required
          value=${url}
          placeholder="https://example.com/mail-events"
          onInput=${(e: Event) => setUrl((e.target as HTMLInputElement).value)}
      /></label>
      <button type="submit">Register webhook</button>
    </form>
    <${ErrorNote} message=${error ?? list.error} />
    ${
      secret &&
      html`<div class="created" role="region" aria-labelledby="secret-title">
        <h2 id="secret-title">Signing secret of ${secret.url}</h2>
        <p>Copy it now: it is not shown again (rotate it to get a new one).</p>
        <code data-testid="webhook-secret">${secret.secret}</code>
        <${CopyButton} text=${secret.secret} label="signing secret" />
      </div>`
    }
    ${list.loading && html`<${Status}>Loading webhooks…</${Status}>`}
    ${
      list.data?.length === 0 &&
      html`<${EmptyState}>
        No webhooks yet. Register your endpoint's URL above: mailplane then posts each delivery, bounce, open and
        click to it as it happens, signed with the secret shown once.
      </${EmptyState}>`
    }
    ${(list.data ?? []).map(
      (hook) =>
        html`<article class="domain" aria-labelledby=${`hook-${hook.id}`}>
          <h2 id=${`hook-${hook.id}`}>${hook.url}</h2>
          <p>Registered ${formatNs(hook.created)}</p>
          ${
            hook.disabledReason != null &&
            html`<p class="error" role="note">
              Disabled by mailplane ${formatNs(hook.disabledAt)}: ${hook.disabledReason}. Enable it again when the
              endpoint answers.
            </p>`
          }
          <label class="check"
            ><input
              type="checkbox"
              checked=${hook.enabled}
              onChange=${() => update(hook, { enabled: !hook.enabled })}
            />
            Enabled</label
          >
          <fieldset class="toggles">
            <legend>Events sent to ${hook.url}</legend>
            ${TOGGLES.map(
              ([name, label]) =>
                html`<label class="check"
                  ><input
                    type="checkbox"
                    checked=${hook[name] === true}
                    onChange=${() => update(hook, { [name]: hook[name] !== true })}
                  />
                  ${label}</label
                >`,
            )}
            <label class="check"
              ><input
                type="checkbox"
                checked=${hook.incident === true}
                aria-describedby=${`hook-${hook.id}-incident-hint`}
                onChange=${() => update(hook, { incident: hook.incident !== true })}
              />
              Incident</label
            >
            <span class="hint" id=${`hook-${hook.id}-incident-hint`}
              >incident opened or resolved: docs/reputation.md</span
            >
          </fieldset>
          <div class="actions">
            <button
              type="button"
              class="secondary"
              onClick=${() => update(hook, { rotateSecret: true })}
              aria-label=${`Rotate the signing secret of ${hook.url}`}
            >
              Rotate secret
            </button>
            <button
              type="button"
              class="danger"
              onClick=${() => confirmed(`Delete the webhook ${hook.url}?`, () => run(() => api.call('DELETE', `/account/webhook/${hook.id}`)))}
              aria-label=${`Delete ${hook.url}`}
            >
              Delete
            </button>
          </div>
          <h3>Recent deliveries</h3>
          <${RecentDeliveries} id=${hook.id} url=${hook.url} />
        </article>`,
    )}
  </section>`;
}
