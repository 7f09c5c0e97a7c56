/**
 * Activity: the message search of the activity API (docs/activity.md), and a message's page with
 * its event timeline, SMTP replies, IP and pool.
 */
import { useState } from 'preact/hooks';
import { activityQuery, eventIsProblem, eventName, formatNs, shownText } from '../format.js';
import { ErrorNote, html, Status, useApp, useLoad } from '../lib.js';

/** A message as the activity list answers it (the fields the dashboard shows). */
interface MessageItem {
  messageID: string;
  subAccountID: number;
  submittedAt: number;
  from: { email: string; name?: string };
  to: { email: string; name?: string };
  subject: string;
  status: string;
  attempt: number;
  ipID?: number;
  accountIPPoolID?: number;
  ipPool?: string;
  events?: EventItem[];
}

/** An event as the event list answers it. */
interface EventItem {
  eventID: string;
  type: number;
  messageID: string;
  submittedAt: number;
  smtpCode?: number;
  smtpDescription?: string;
  ipID?: number;
  ipPoolID?: number;
}

/**
 * A mailbox as `Name <address>`, the name isolated (`<bdi>`) so right-to-left letters in it cannot
 * reorder the address, and both through shownText: invisible and text-direction characters show.
 */
function Mailbox({ mailbox }: { mailbox: { email: string; name?: string } }) {
  const name = mailbox.name?.trim();
  const address = shownText(mailbox.email);
  return name ? html`<bdi>${shownText(name)}</bdi> ${`<${address}>`}` : address;
}

/** The activity page: filters, results, and the next page on demand. */
export function Activity() {
  const { api, session } = useApp();
  const prefix = session.kind === 'account' ? '/account' : '/subaccount';
  const [draft, setDraft] = useState<Record<string, string>>({
    recipient: '',
    sender: '',
    status: '',
    from: '',
    to: '',
  });
  const [filters, setFilters] = useState(draft);
  const [pages, setPages] = useState<{ items: MessageItem[]; nextCursor: string | null }[]>([]);
  const first = useLoad(async () => {
    const page = await api.call<{ items: MessageItem[]; nextCursor: string | null }>('GET', `${prefix}/message`, {
      query: activityQuery(filters),
    });
    setPages([page]);
    return page;
  }, [filters]);
  const [more, setMore] = useState<string | undefined>();
  const loadMore = async () => {
    const cursor = pages[pages.length - 1]?.nextCursor;
    try {
      const page = await api.call<{ items: MessageItem[]; nextCursor: string | null }>('GET', `${prefix}/message`, {
        query: activityQuery(filters, cursor),
      });
      setPages([...pages, page]);
    } catch (error) {
      setMore((error as Error).message);
    }
  };
  const items = pages.flatMap((p) => p.items);
  const set = (name: string) => (event: Event) =>
    setDraft({ ...draft, [name]: (event.target as HTMLInputElement).value });
  const search = (event: Event) => {
    event.preventDefault();
    setFilters({ ...draft });
  };
  return html`<section aria-labelledby="activity-title">
    <h1 id="activity-title">Activity</h1>
    <form class="filters" role="search" aria-label="Search messages" onSubmit=${search}>
      <label
        >Recipient <input type="email" name="recipient" value=${draft.recipient} onInput=${set('recipient')}
      /></label>
      <label>Sender <input type="email" name="sender" value=${draft.sender} onInput=${set('sender')} /></label>
      <label
        >Status
        <select name="status" value=${draft.status} onChange=${set('status')}>
          <option value="">Any</option>
          ${['queued', 'deferred', 'delivered', 'dropped', 'smtp_dropped', 'hard_bounced'].map((s) => html`<option value=${s}>${s}</option>`)}
        </select>
      </label>
      <label>From day <input type="date" name="from" value=${draft.from} onInput=${set('from')} /></label>
      <label>To day <input type="date" name="to" value=${draft.to} onInput=${set('to')} /></label>
      <button type="submit">Search</button>
    </form>
    <${ErrorNote} message=${first.error ?? more} />
    ${first.loading && html`<${Status}>Searching…</${Status}>`}
    ${!first.loading && items.length === 0 && !first.error && html`<${Status}>No messages match.</${Status}>`}
    ${
      items.length > 0 &&
      html`<table class="list">
        <caption>
          Messages, newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">Submitted</th>
            <th scope="col">Recipient</th>
            <th scope="col">Subject</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          ${items.map(
            (m) =>
              html`<tr>
                <td>${formatNs(m.submittedAt)}</td>
                <td>${shownText(m.to.email)}</td>
                <td>
                  <a href=${`#/message/${encodeURIComponent(m.messageID)}`}
                    >${shownText(m.subject) || '(no subject)'}</a
                  >
                </td>
                <td><span class=${`badge status-${m.status}`}>${m.status}</span></td>
              </tr>`,
          )}
        </tbody>
      </table>`
    }
    ${pages[pages.length - 1]?.nextCursor && html`<button type="button" onClick=${loadMore}>Load more</button>`}
  </section>`;
}

/** The message and its events, oldest first, from the single-message route of the session's kind of key. */
async function loadMessage(
  api: ReturnType<typeof useApp>['api'],
  kind: string | undefined,
  id: string,
): Promise<{ message: MessageItem; events: EventItem[] }> {
  const prefix = kind === 'account' ? '/account' : '/subaccount';
  const message = await api.call<MessageItem>('GET', `${prefix}/message/${encodeURIComponent(id)}`);
  return { message, events: message.events ?? [] };
}

/** A message's page. */
export function MessagePage({ id }: { id: string }) {
  const { api, session } = useApp();
  const loaded = useLoad(() => loadMessage(api, session.kind, id), [id]);
  const m = loaded.data?.message;
  return html`<section aria-labelledby="message-title">
    <p><a href="#/activity">← Back to activity</a></p>
    <h1 id="message-title">Message ${id}</h1>
    <${ErrorNote} message=${loaded.error} />
    ${loaded.loading && html`<${Status}>Loading the message…</${Status}>`}
    ${
      m &&
      html`<dl class="facts">
          <dt>Subject</dt>
          <dd>${shownText(m.subject) || '(no subject)'}</dd>
          <dt>From</dt>
          <dd><${Mailbox} mailbox=${m.from} /></dd>
          <dt>To</dt>
          <dd><${Mailbox} mailbox=${m.to} /></dd>
          <dt>Status</dt>
          <dd><span class=${`badge status-${m.status}`}>${m.status}</span></dd>
          <dt>Submitted</dt>
          <dd>${formatNs(m.submittedAt)}</dd>
          <dt>Attempts</dt>
          <dd>${m.attempt}</dd>
          <dt>Sub-account</dt>
          <dd>${m.subAccountID}</dd>
          <dt>IP</dt>
          <dd>${m.ipID ?? '—'}</dd>
          <dt>Pool</dt>
          <dd>${m.ipPool ?? m.accountIPPoolID ?? '—'}</dd>
        </dl>
        <h2>Timeline</h2>
        <ol class="timeline" aria-label="Events, oldest first">
          ${loaded.data!.events.map(
            (e) =>
              html`<li class=${eventIsProblem(e.type) ? 'problem' : ''}>
                <strong>${eventName(e.type)}</strong> <time>${formatNs(e.submittedAt)}</time>
                ${e.smtpCode !== undefined && html`<div class="smtp">SMTP reply: ${e.smtpDescription?.startsWith(String(e.smtpCode)) ? e.smtpDescription : `${e.smtpCode} ${e.smtpDescription ?? ''}`}</div>`}
                ${(e.ipID !== undefined || e.ipPoolID !== undefined) && html`<div class="route">IP ${e.ipID ?? '—'}, pool ${e.ipPoolID ?? '—'}</div>`}
              </li>`,
          )}
        </ol>`
    }
  </section>`;
}
