/**
 * A webhook's recent deliveries (`GET /account/webhook/{id}/delivery`, docs/webhooks.md "Delivery
 * log"): each attempt's time, event, attempt number, result, the receiver's status or the error,
 * and when a queued retry is due; newest first, with a refresh button.
 */
import { formatNs } from '../format.js';
import { EmptyState, ErrorNote, html, TableScroll, useApp, useLoad } from '../lib.js';

/** One attempt as the API answers it. */
interface Delivery {
  id: number;
  eventId: string;
  replayId: string | null;
  attempt: number;
  result: 'delivered' | 'will-retry' | 'gave-up' | 'failed';
  status: number | null;
  error: string | null;
  durationMs: number;
  created: number;
  nextRetryAt: number | null;
}

/** How the page names each result. */
const RESULTS: Record<Delivery['result'], string> = {
  delivered: 'delivered',
  'will-retry': 'failed, will retry',
  'gave-up': 'failed, gave up',
  failed: 'failed, not retried',
};

/** How many attempts the page shows. */
const SHOWN = 20;

/** The receiver's answer or the error, in one cell. */
const outcomeText = (d: Delivery) =>
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
      html`<${TableScroll}><table class="list">
        <caption>
          Recent deliveries to ${url}
        </caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Event</th>
            <th scope="col">Attempt</th>
            <th scope="col">Result</th>
            <th scope="col">Status or error</th>
            <th scope="col">Took</th>
            <th scope="col">Next retry</th>
          </tr>
        </thead>
        <tbody>
          ${log.data.map(
            (d) =>
              html`<tr>
                <td>${formatNs(d.created)}</td>
                <td><code>${d.eventId}</code>${d.replayId !== null && html` (replay)`}</td>
                <td>${d.attempt}</td>
                <td><span class=${`badge result-${d.result}`}>${RESULTS[d.result] ?? d.result}</span></td>
                <td>${outcomeText(d)}</td>
                <td>${d.durationMs} ms</td>
                <td>${formatNs(d.nextRetryAt)}</td>
              </tr>`,
          )}
        </tbody>
      </table></${TableScroll}>`
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
