/**
 * Activity: the message search of the activity API (docs/activity.md), and a message's page with
 * its event timeline, SMTP replies, IP and pool. Subjects are shown as the recipient got them
 * (`renderedSubject`); sub-accounts, pools and IPs by name, linked to the page that lists them.
 */
import { useState } from 'preact/hooks';
import { activityQuery, eventIsProblem, eventName, formatNs, shownText, smtpReplyText } from '../format.js';
import { EmptyState, ErrorNote, html, Status, TableScroll, useApp, useLoad } from '../lib.js';
import { IpLink, PoolLink, SubAccountLink, useNames, type Names } from './names.js';
import { Replies } from './received-message.js';

/** A message as the activity list answers it (the fields the dashboard shows). */
interface MessageItem {
  messageID: string;
  subAccountID: number;
  submittedAt: number;
  from: { email: string; name?: string };
  to: { email: string; name?: string };
  subject: string;
  /** The subject as the recipient got it (`subject` is the accepted template). */
  renderedSubject?: string;
  template?: { id: number; name: string; version: number };
  status: string;
  attempt: number;
  ipID?: number;
  accountIPPoolID?: number;
  ipPool?: string;
  events?: EventItem[];
  /** The received messages that answer it (the single message's answer only). */
  replies?: { id: string; from: string; subject: string; receivedAt: number; status: string }[];
}

/** An event as the event list answers it. */
interface EventItem {
  eventID: string;
  type: number;
  messageID: string;
  submittedAt: number;
  smtpCode?: number | null;
  smtpDescription?: string | null;
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

/** The subject as the recipient got it, as people read it. */
const subjectOf = (m: MessageItem): string => shownText(m.renderedSubject ?? m.subject) || '(no subject)';

/** The activity page: filters, results, and the next page on demand. */
export function Activity() {
  const { api, session } = useApp();
  const names = useNames();
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
    ${
      !first.loading &&
      items.length === 0 &&
      !first.error &&
      (Object.values(filters).some((value) => value.trim() !== '')
        ? html`<${EmptyState}>No messages match these filters. Widen the days or clear a field, then search again.</${EmptyState}>`
        : html`<${EmptyState}>
            No messages yet. Send one with <code>POST /api/v1/subaccount/email</code> or through the SMTP relay
            (docs/sending.md): it shows here with each delivery attempt.
          </${EmptyState}>`)
    }
    ${
      items.length > 0 &&
      html`<${TableScroll}><table class="list">
        <caption>
          Messages, newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">Submitted</th>
            ${names.known && html`<th scope="col">Sub-account</th>`}
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
                ${names.known && html`<td><${SubAccountLink} id=${m.subAccountID} names=${names} /></td>`}
                <td>${shownText(m.to.email)}</td>
                <td>
                  <a href=${`#/message/${encodeURIComponent(m.messageID)}`}>${subjectOf(m)}</a>
                </td>
                <td><span class=${`badge status-${m.status}`}>${m.status}</span></td>
              </tr>`,
          )}
        </tbody>
      </table></${TableScroll}>`
    }
    ${pages[pages.length - 1]?.nextCursor && html`<button type="button" class="secondary" onClick=${loadMore}>Load more</button>`}
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

/** Where a message or event went out: its IP and pool by name, when the session can read them. */
function routeOf({
  ipID,
  poolID,
  poolName,
  names,
}: {
  ipID?: number;
  poolID?: number;
  poolName?: string;
  names: Names;
}) {
  const ip = ipID !== undefined && names.known ? html`<${IpLink} id=${ipID} names=${names} />` : undefined;
  const pool =
    poolID !== undefined && names.known
      ? html`<${PoolLink} id=${poolID} names=${names} fallback=${poolName} />`
      : poolName !== undefined
        ? shownText(poolName)
        : undefined;
  return { ip, pool };
}

/** A message's page. */
export function MessagePage({ id }: { id: string }) {
  const { api, session } = useApp();
  const names = useNames();
  const loaded = useLoad(() => loadMessage(api, session.kind, id), [id]);
  const m = loaded.data?.message;
  const route = m && routeOf({ ipID: m.ipID, poolID: m.accountIPPoolID, poolName: m.ipPool, names });
  const rendered = m?.renderedSubject ?? m?.subject;
  return html`<section aria-labelledby="message-title">
    <p><a href="#/activity">← Back to activity</a></p>
    <h1 id="message-title">Message</h1>
    <${ErrorNote} message=${loaded.error} />
    ${loaded.loading && html`<${Status}>Loading the message…</${Status}>`}
    ${
      m &&
      html`<dl class="facts">
          <dt>Subject</dt>
          <dd>${subjectOf(m)}</dd>
          ${
            (m.template || rendered !== m.subject) &&
            html`<dt>Subject template</dt>
              <dd><code>${shownText(m.subject)}</code></dd>`
          }
          ${
            m.template &&
            html`<dt>Template</dt>
              <dd>${shownText(m.template.name)}, version ${m.template.version}</dd>`
          }
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
          ${
            names.known &&
            html`<dt>Sub-account</dt>
              <dd><${SubAccountLink} id=${m.subAccountID} names=${names} /></dd>`
          }
          ${
            names.known &&
            html`<dt>IP</dt>
              <dd>${route?.ip ?? '—'}</dd>`
          }
          ${
            (names.known || route?.pool) &&
            html`<dt>Pool</dt>
              <dd>${route?.pool ?? '—'}</dd>`
          }
          <dt>Message id</dt>
          <dd><code>${m.messageID}</code></dd>
        </dl>
        <h2>Timeline</h2>
        <ol class="timeline" aria-label="Events, oldest first">
          ${loaded.data!.events.map((e) => {
            const reply = smtpReplyText(e.smtpCode, e.smtpDescription);
            const where = routeOf({ ipID: e.ipID, poolID: e.ipPoolID, names });
            return html`<li class=${eventIsProblem(e.type) ? 'problem' : ''}>
              <strong>${eventName(e.type)}</strong> <time>${formatNs(e.submittedAt)}</time>
              ${reply && html`<div class="smtp">${shownText(reply)}</div>`}
              ${
                (where.ip || where.pool) &&
                html`<div class="route">
                  ${where.ip && html`IP ${where.ip}`}${where.ip && where.pool && ', '}${where.pool && html`pool ${where.pool}`}
                </div>`
              }
            </li>`;
          })}
        </ol>
        <${Replies} replies=${m.replies} />`
    }
  </section>`;
}
