/**
 * A webhook's recent deliveries (`GET /account/webhook/{id}/delivery`, docs/webhooks.md "Delivery
 * log"): each attempt's time, event, attempt number, result, the receiver's status or the error,
 * and when a queued retry is due; newest first, with a refresh button.
 */
import { formatNs } from '../format.js';
import { EmptyState, ErrorNote, html, TableScroll, useApp, useLoad } from '../lib.js';

/** One POST as a delivery log answers it: an event webhook's, or a received message's to its route. */
export interface PostAttempt {
  id: number;
  attempt: number;
  result: 'delivered' | 'will-retry' | 'gave-up' | 'failed';
  status: number | null;
  error: string | null;
  durationMs: number;
  created: number;
  nextRetryAt: number | null;
}

/** One attempt of an event webhook. */
interface Delivery extends PostAttempt {
  eventId: string;
  replayId: string | null;
}

/** How the page names each result. */
const RESULTS: Record<PostAttempt['result'], string> = {
  delivered: 'delivered',
  'will-retry': 'failed, will retry',
  'gave-up': 'failed, gave up',
  failed: 'failed, not retried',
};

/** How many attempts the page shows. */
const SHOWN = 20;

/** The receiver's answer or the error, in one cell. */
const outcomeText = (d: PostAttempt) =>
  [d.status === null ? '' : `HTTP ${d.status}`, d.error !== null && d.error !== `HTTP ${d.status}` ? d.error : '']
    .filter(Boolean)
    .join(': ') || '—';

/** The recent deliveries of the webhook `id` (whose endpoint is `url`). */
export function RecentDeliveries({ id, url }: { id: number; url: string }) {
  const { api } = useApp();
  const log = useLoad(
    () => api.call<Delivery[]>('GET', `/account/webhook/${id}/delivery`, { query: { limit: String(SHOWN) } }),
    [id],
  );
  return html`<div class="deliveries">
    <${ErrorNote} message=${log.error} />
    ${
      log.data?.length === 0 &&
      html`<${EmptyState}>
        No deliveries to ${url} yet: one is made when an event it is switched on for happens. Send a message, then
        refresh.
      </${EmptyState}>`
    }
    ${
      log.data &&
      log.data.length > 0 &&
      html`<${PostAttemptsTable}
        caption=${`Recent deliveries to ${url}`}
        attempts=${log.data}
        what=${(d: Delivery) => html`<code>${d.eventId}</code>${d.replayId !== null && html` (replay)`}`}
      />`
    }
    <button
      type="button"
      class="secondary"
      onClick=${log.reload}
      disabled=${log.loading}
      aria-label=${`Refresh the deliveries to ${url}`}
    >
      Refresh deliveries
    </button>
  </div>`;
}

/**
 * A table of POST attempts, newest first: time, what was posted (`what`, when given), attempt,
 * result, the receiver's status or the error, how long it took, and when a retry is due.
 */
export function PostAttemptsTable<T extends PostAttempt>({
  caption,
  attempts,
  what,
}: {
  caption: string;
  attempts: readonly T[];
  what?: (attempt: T) => unknown;
}) {
  return html`<${TableScroll}><table class="list">
    <caption>
      ${caption}
    </caption>
    <thead>
      <tr>
        <th scope="col">Time</th>
        ${what && html`<th scope="col">Event</th>`}
        <th scope="col">Attempt</th>
        <th scope="col">Result</th>
        <th scope="col">Status or error</th>
        <th scope="col">Took</th>
        <th scope="col">Next retry</th>
      </tr>
    </thead>
    <tbody>
      ${attempts.map(
        (d) =>
          html`<tr>
            <td>${formatNs(d.created)}</td>
            ${what && html`<td>${what(d)}</td>`}
            <td>${d.attempt}</td>
            <td><span class=${`badge result-${d.result}`}>${RESULTS[d.result] ?? d.result}</span></td>
            <td>${outcomeText(d)}</td>
            <td>${d.durationMs} ms</td>
            <td>${formatNs(d.nextRetryAt)}</td>
          </tr>`,
      )}
    </tbody>
  </table></${TableScroll}>`;
}
