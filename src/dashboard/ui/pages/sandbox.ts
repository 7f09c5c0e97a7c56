/**
 * The sandbox inbox (docs/sandbox.md), account sessions: what the local mail catcher captured, each
 * message with its header fields, DKIM result, text, and HTML shown only in a sandboxed frame
 * without scripts (an opaque origin: it can run nothing and reach nothing of the dashboard).
 */
import { useState } from 'preact/hooks';
import { formatNs, shownText } from '../format.js';
import { EmptyState, ErrorNote, html, Status, TableScroll, useApp, useLoad } from '../lib.js';
import { parseMail } from '../mime.js';

interface Captured {
  id: number;
  messageId: string;
  mailFrom: string;
  rcptTo: string[];
  subject: string;
  received: number;
  raw?: string;
  dkim?: { result: string; domain: string; selector: string; comment: string };
}

function CapturedMessage({ id }: { id: number }) {
  const { api } = useApp();
  const one = useLoad(() => api.call<Captured>('GET', `/account/sandbox/message/${id}`), [id]);
  const [showRaw, setShowRaw] = useState(false);
  if (one.error) return html`<${ErrorNote} message=${one.error} />`;
  if (!one.data) return html`<${Status}>Loading the message…</${Status}>`;
  const m = one.data;
  const mail = parseMail(m.raw ?? '');
  return html`<article class="captured" aria-labelledby="captured-title">
    <h2 id="captured-title">${shownText(m.subject) || '(no subject)'}</h2>
    <dl class="facts">
      <dt>DKIM</dt>
      <dd>
        <span class=${`badge ${m.dkim?.result === 'pass' ? 'status-delivered' : 'status-hard_bounced'}`}
          >${m.dkim?.result ?? 'none'}</span
        >
        ${m.dkim?.domain ?? ''} ${m.dkim?.selector ? `(selector ${m.dkim.selector})` : ''} ${m.dkim?.comment ?? ''}
      </dd>
      <dt>Envelope from</dt>
      <dd>${shownText(m.mailFrom)}</dd>
      <dt>Envelope to</dt>
      <dd>${shownText(m.rcptTo.join(', '))}</dd>
      <dt>Received</dt>
      <dd>${formatNs(m.received)}</dd>
      <dt>Message</dt>
      <dd><a href=${`#/message/${encodeURIComponent(m.messageId)}`}>${m.messageId}</a></dd>
    </dl>
    ${
      mail.html !== undefined &&
      html`<h3>HTML</h3>
        <iframe
          class="mail-html"
          sandbox=""
          referrerpolicy="no-referrer"
          title="The message's HTML, without scripts"
          srcdoc=${mail.html}
        ></iframe>`
    }
    ${
      mail.text !== undefined &&
      html`<h3>Text</h3>
        <pre class="mail-text">${mail.text}</pre>`
    }
    <h3>Header fields</h3>
    <${TableScroll}><table class="list headers">
      <caption class="visually-hidden">
        Header fields
      </caption>
      <tbody>
        ${mail.headers.map(
          (h) =>
            html`<tr>
              <th scope="row">${shownText(h.name)}</th>
              <td>${shownText(h.value)}</td>
            </tr>`,
        )}
      </tbody>
    </table></${TableScroll}>
    <button type="button" class="secondary" aria-expanded=${showRaw ? 'true' : 'false'} onClick=${() => setShowRaw(!showRaw)}>
      ${showRaw ? 'Hide the source' : 'Show the source'}
    </button>
    ${showRaw && html`<pre class="mail-raw">${m.raw}</pre>`}
  </article>`;
}

/** The sandbox inbox page; `arg` is the captured message shown. */
export function SandboxInbox({ arg }: { arg: string | undefined }) {
  const { api } = useApp();
  const list = useLoad(() => api.call<Captured[]>('GET', '/account/sandbox/message', { query: { limit: '50' } }), []);
  const selected = arg !== undefined && /^\d+$/.test(arg) ? Number(arg) : undefined;
  return html`<section aria-labelledby="sandbox-title">
    <h1 id="sandbox-title">Sandbox inbox</h1>
    <p class="hint">Mail the local sandbox captured instead of delivering it (docs/sandbox.md). Newest first.</p>
    <${ErrorNote} message=${list.error} />
    ${list.loading && html`<${Status}>Loading captured mail…</${Status}>`}
    ${
      list.data?.length === 0 &&
      html`<${EmptyState}>
        Nothing captured yet. Send a message from a verified domain with the sandbox running (docs/sandbox.md):
        it is caught here instead of being delivered.
      </${EmptyState}>`
    }
    ${
      list.data &&
      list.data.length > 0 &&
      html`<${TableScroll}><table class="list">
        <caption>
          Captured messages
        </caption>
        <thead>
          <tr>
            <th scope="col">Received</th>
            <th scope="col">To</th>
            <th scope="col">Subject</th>
          </tr>
        </thead>
        <tbody>
          ${list.data.map(
            (m) =>
              html`<tr aria-current=${m.id === selected ? 'true' : undefined}>
                <td>${formatNs(m.received)}</td>
                <td>${shownText(m.rcptTo.join(', '))}</td>
                <td><a href=${`#/sandbox/${m.id}`}>${shownText(m.subject) || '(no subject)'}</a></td>
              </tr>`,
          )}
        </tbody>
      </table></${TableScroll}>`
    }
    ${selected !== undefined && html`<${CapturedMessage} key=${selected} id=${selected} />`}
  </section>`;
}
