/**
 * A received message's page: its headers in short, its authentication results (SPF, DKIM, DMARC,
 * ARC), what its route did, the sent message it answers, delivering it again and its raw download;
 * and the replies shown on a sent message's page. The sub-account's own paths (redeliver, raw) are
 * called as the message's sub-account, which an account session may act as.
 */
import { useState } from 'preact/hooks';
import { formatNs, shownText } from '../format.js';
import { ErrorNote, html, Status, useApp, useLoad } from '../lib.js';
import { SubAccountLink, useNames } from './names.js';
import { ReceivedStatus, receivedSubject, routeText, type ReceivedItem } from './received.js';
import { PostAttemptsTable, type PostAttempt } from './webhook-deliveries.js';

/** A reply as a sent message's `replies` lists it. */
interface Reply {
  id: string;
  from: string;
  subject: string;
  receivedAt: number;
  status: string;
}

/** The verdicts shown, in the order mail is checked. */
const CHECKS = [
  ['spf', 'SPF'],
  ['dkim', 'DKIM'],
  ['dmarc', 'DMARC'],
  ['arc', 'ARC'],
] as const;

/** A verdict's badge: `pass` reads as good news, `fail` and the errors as bad, the rest as plain words. */
const Verdict = ({ name, verdict }: { name: string; verdict: string }) => {
  const tone = verdict === 'pass' ? 'pass' : /fail|error/.test(verdict) ? 'fail' : 'other';
  return html`<span class=${`badge auth-${tone}`}>${name} ${verdict}</span>`;
};

/** Saves `blob` as a file named `name`, as a download link would. */
function saveFile(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The received message `id`'s page. */
export function ReceivedMessagePage({ id }: { id: string }) {
  const { api, session } = useApp();
  const names = useNames();
  const prefix = session.kind === 'account' ? '/account' : '/subaccount';
  const loaded = useLoad(
    () => api.call<ReceivedItem>('GET', `${prefix}/inbound/message/${encodeURIComponent(id)}`),
    [id],
  );
  const [action, setAction] = useState<{ error?: string; done?: string }>({});
  const m = loaded.data;
  const own = (path: string) => `/subaccount/inbound/message/${encodeURIComponent(id)}${path}`;
  const redeliver = async () => {
    setAction({});
    try {
      const after = await api.call<ReceivedItem>('POST', own('/redeliver'), { actAs: m!.subAccountId });
      setAction({ done: `Delivered again through ${routeText(after)}: ${after.status}.` });
      loaded.reload();
    } catch (error) {
      setAction({ error: (error as Error).message });
    }
  };
  const download = async () => {
    setAction({});
    try {
      saveFile(await api.download(own('/raw'), { actAs: m!.subAccountId }), `${id}.eml`);
    } catch (error) {
      setAction({ error: (error as Error).message });
    }
  };
  return html`<section aria-labelledby="received-message-title">
    <p><a href="#/received">← Back to received mail</a></p>
    <h1 id="received-message-title">Received message</h1>
    <${ErrorNote} message=${loaded.error} />
    ${loaded.loading && !m && html`<${Status}>Loading the message…</${Status}>`}
    ${
      m &&
      html`<dl class="facts">
          <dt>Subject</dt>
          <dd>${receivedSubject(m)}</dd>
          <dt>From</dt>
          <dd>${shownText(m.from) || '—'}</dd>
          <dt>Envelope</dt>
          <dd>from ${shownText(m.envelope.mailFrom) || '<>'} to ${shownText(m.envelope.rcptTo)}</dd>
          <dt>Message-ID</dt>
          <dd>${m.messageIdHeader ? html`<code>${shownText(m.messageIdHeader)}</code>` : '—'}</dd>
          <dt>Received</dt>
          <dd>${formatNs(m.receivedAt)}</dd>
          <dt>Size</dt>
          <dd>${m.size.toLocaleString()} bytes</dd>
          ${
            names.known &&
            html`<dt>Sub-account</dt>
              <dd><${SubAccountLink} id=${m.subAccountId} names=${names} /></dd>`
          }
          <dt>Route</dt>
          <dd>${routeText(m)}</dd>
          <dt>Status</dt>
          <dd><${ReceivedStatus} status=${m.status} />${m.detail && html` ${shownText(m.detail)}`}</dd>
          <dt>Authentication</dt>
          <dd class="verdicts">
            ${CHECKS.map(([key, name]) => html`<${Verdict} name=${name} verdict=${m.auth[key]} /> `)}
          </dd>
          <dt>Answers</dt>
          <dd>
            ${
              m.inReplyToMessageId
                ? html`<a href=${`#/message/${encodeURIComponent(m.inReplyToMessageId)}`}
                    >the message sent as <code>${m.inReplyToMessageId}</code></a
                  >`
                : 'no message sent through mailplane'
            }
          </dd>
          <dt>Id</dt>
          <dd><code>${m.id}</code></dd>
        </dl>
        <div class="actions">
          <button type="button" onClick=${redeliver} disabled=${!m.rawKept || !m.route}>Deliver again</button>
          <button type="button" class="secondary" onClick=${download} disabled=${!m.rawKept}>
            Download the raw message
          </button>
        </div>
        ${
          !m.rawKept &&
          html`<p class="hint">
            The raw message was larger than the listener keeps, so it cannot be delivered again or downloaded.
          </p>`
        }
        ${m.rawKept && !m.route && html`<p class="hint">Its route was deleted: add a route for its recipient to deliver it.</p>`}
        <${ErrorNote} message=${action.error} />
        ${action.done && html`<${Status}>${action.done}</${Status}>`}
        <${PostLog} id=${id} subAccountId=${m.subAccountId} version=${`${m.status}:${m.detail}`} />`
    }
  </section>`;
}

/** The POSTs of the message to its route's webhook (`…/attempt`), read again when the message changes. */
function PostLog({ id, subAccountId, version }: { id: string; subAccountId: number; version: string }) {
  const { api } = useApp();
  const log = useLoad(
    () =>
      api.call<PostAttempt[]>('GET', `/subaccount/inbound/message/${encodeURIComponent(id)}/attempt`, {
        actAs: subAccountId,
      }),
    [id, version],
  );
  if (log.error) return html`<${ErrorNote} message=${log.error} />`;
  if (!log.data || log.data.length === 0) return null;
  return html`<h2>Posts to the webhook</h2>
    <${PostAttemptsTable} caption="Posts of this message to its route's URL, newest first" attempts=${log.data} />`;
}

/** The replies threaded to a sent message, each linked to its page (nothing when there are none). */
export function Replies({ replies }: { replies: readonly Reply[] | undefined }) {
  if (!replies || replies.length === 0) return null;
  return html`<h2>Replies</h2>
    <ul class="replies" aria-label="Replies, newest first">
      ${replies.map(
        (r) =>
          html`<li>
            <a href=${`#/received/${encodeURIComponent(r.id)}`}>${shownText(r.subject) || '(no subject)'}</a>
            from ${shownText(r.from) || '—'}, <time>${formatNs(r.receivedAt)}</time>
            <${ReceivedStatus} status=${r.status} />
          </li>`,
      )}
    </ul>`;
}
