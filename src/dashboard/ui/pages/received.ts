/**
 * Received: the mail the account's receiving domains took (docs/inbound.md; the lists of
 * docs/activity.md, "Received messages"), newest first, with the activity's filters. An account
 * session reads every sub-account's (`/account/inbound/message`, cursor paged) and names their
 * sub-accounts; a sub-account session reads its own (`/subaccount/inbound/message`, offset paged).
 */
import { useState } from 'preact/hooks';
import { activityQuery, formatNs, shownText } from '../format.js';
import { EmptyState, ErrorNote, html, Status, TableScroll, useApp, useLoad } from '../lib.js';
import { SubAccountLink, useNames } from './names.js';

/** A received message as the lists answer it (the fields the dashboard shows). */
export interface ReceivedItem {
  id: string;
  subAccountId: number;
  envelope: { mailFrom: string; rcptTo: string };
  from: string;
  subject: string;
  messageIdHeader: string;
  inReplyToMessageId: string | null;
  route: { id: number; pattern: string } | null;
  status: string;
  detail: string;
  auth: { spf: string; dkim: string; dmarc: string; arc: string };
  size: number;
  receivedAt: number;
  rawKept: boolean;
}

/** What became of a received message, as its badge says it. */
export const ReceivedStatus = ({ status }: { status: string }) =>
  html`<span class=${`badge inbound-${status}`}>${status}</span>`;

/** The subject as people read it. */
export const receivedSubject = (m: Pick<ReceivedItem, 'subject'>): string => shownText(m.subject) || '(no subject)';

/** The route that took a message, by its pattern; a deleted one says so. */
export const routeText = (m: Pick<ReceivedItem, 'route'>): string =>
  m.route ? shownText(m.route.pattern) : 'deleted route';

/** Items a page asks for. */
const PAGE_SIZE = 50;

/** One page of either list, as the account's list answers it. */
interface ReceivedPage {
  items: ReceivedItem[];
  /** The account's cursor; for a sub-account, the next offset as text; `null` at the end. */
  nextCursor: string | null;
}

/** The Received page: filters, the list, and the next page on demand. */
export function Received() {
  const { api, session } = useApp();
  const names = useNames();
  const isAccount = session.kind === 'account';
  const [draft, setDraft] = useState<Record<string, string>>({
    sender: '',
    recipient: '',
    status: '',
    from: '',
    to: '',
  });
  const [filters, setFilters] = useState(draft);
  const [pages, setPages] = useState<ReceivedPage[]>([]);
  const [more, setMore] = useState<string | undefined>();
  /** The page after `after`: the account's list by cursor, the sub-account's by offset. */
  const load = async (after: string | null): Promise<ReceivedPage> => {
    const query = activityQuery(filters);
    if (isAccount) {
      if (after) query.set('cursor', after);
      return api.call<ReceivedPage>('GET', '/account/inbound/message', { query });
    }
    const offset = Number(after ?? 0);
    query.set('offset', String(offset));
    const items = await api.call<ReceivedItem[]>('GET', '/subaccount/inbound/message', { query });
    return { items, nextCursor: items.length === PAGE_SIZE ? String(offset + items.length) : null };
  };
  const first = useLoad(async () => {
    const page = await load(null);
    setPages([page]);
    return page;
  }, [filters]);
  const loadMore = async () => {
    try {
      setPages([...pages, await load(pages[pages.length - 1]?.nextCursor ?? null)]);
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
  const filtered = Object.values(filters).some((value) => value.trim() !== '');
  return html`<section aria-labelledby="received-title">
    <h1 id="received-title">Received</h1>
    <form class="filters" role="search" aria-label="Search received messages" onSubmit=${search}>
      <label>Sender <input type="email" name="sender" value=${draft.sender} onInput=${set('sender')} /></label>
      <label
        >Recipient <input type="email" name="recipient" value=${draft.recipient} onInput=${set('recipient')}
      /></label>
      <label
        >Status
        <select name="status" value=${draft.status} onChange=${set('status')}>
          <option value="">Any</option>
          ${['pending', 'posted', 'stored', 'forwarded', 'failed'].map((s) => html`<option value=${s}>${s}</option>`)}
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
      (filtered
        ? html`<${EmptyState}>No received messages match these filters. Widen the days or clear a field, then search again.</${EmptyState}>`
        : html`<${EmptyState}>
            No mail received yet. Enable receiving on a verified domain (<a href="#/domains">Domains</a>, or
            <code>POST /api/v1/subaccount/domain/{id}/inbound</code>), publish its MX record, then add a route with
            <code>POST /api/v1/subaccount/route</code> (docs/inbound.md): mail to its addresses shows here.
          </${EmptyState}>`)
    }
    ${
      items.length > 0 &&
      html`<${TableScroll}><table class="list">
        <caption>
          Received messages, newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">Received</th>
            ${names.known && html`<th scope="col">Sub-account</th>`}
            <th scope="col">From</th>
            <th scope="col">To</th>
            <th scope="col">Subject</th>
            <th scope="col">Route</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          ${items.map(
            (m) =>
              html`<tr>
                <td>${formatNs(m.receivedAt)}</td>
                ${names.known && html`<td><${SubAccountLink} id=${m.subAccountId} names=${names} /></td>`}
                <td>${shownText(m.from || m.envelope.mailFrom) || '—'}</td>
                <td>${shownText(m.envelope.rcptTo)}</td>
                <td><a href=${`#/received/${encodeURIComponent(m.id)}`}>${receivedSubject(m)}</a></td>
                <td>${routeText(m)}</td>
                <td><${ReceivedStatus} status=${m.status} /></td>
              </tr>`,
          )}
        </tbody>
      </table></${TableScroll}>`
    }
    ${pages[pages.length - 1]?.nextCursor && html`<button type="button" class="secondary" onClick=${loadMore}>Load more</button>`}
  </section>`;
}
