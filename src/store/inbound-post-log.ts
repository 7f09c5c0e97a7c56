import type { ListQuery } from '../model/paging.js';
import type { EpochNs } from '../model/time.js';
import type { WebhookDeliveryResult } from './webhook-store.js';

/**
 * The post log of received messages (docs/inbound.md, "Received messages"): one row per POST of a
 * message to its route's webhook, as the event webhooks' delivery log keeps one per event POST.
 */

/** One POST of a received message to its route's URL (first tries, retries and redeliveries alike). */
export interface NewInboundPostAttempt {
  /** The received message posted (its `webhook-id`). */
  messageId: string;
  accountId: number;
  subAccountId: number;
  /** The route posted for; kept when the route is deleted since, as the URL is. */
  routeId: number;
  /** The URL posted to, as the route had it at that attempt. */
  url: string;
  /** 1 for the first POST of a job, 2 for its first retry, and so on (a redelivery starts at 1 again). */
  attempt: number;
  /** As the event webhooks' log says it: `delivered`, `will-retry`, `gave-up` or `failed` (not retried). */
  result: WebhookDeliveryResult;
  /** The receiver's HTTP status; `null` when there was no answer. */
  status: number | null;
  /** Why it failed, in plain words (bounded; never a body or a secret); `null` on success. */
  error: string | null;
  durationMs: number;
  /** When the POST started. */
  created: EpochNs;
  /** When the queued retry is due; `null` unless `result` is `will-retry`. */
  nextRetryAt: EpochNs | null;
}

/** A {@link NewInboundPostAttempt} as stored. */
export interface InboundPostAttemptRecord extends NewInboundPostAttempt {
  id: number;
}

/**
 * The post log of the inbound store.
 *
 * - `recordPostAttempt` appends one row; its message must exist.
 * - `listPostAttempts` MUST answer only the sub-account's rows of that message, newest first
 *   (`created` descending, then id descending), paged by `limit`/`offset`, from an index on the
 *   message. Deleting a message (retention, its sub-account) deletes its rows.
 * - `deletePostAttemptsBefore` deletes at most `limit` rows created before `before` (the retention
 *   job, with the webhook delivery log's days) and answers how many.
 */
export interface InboundPostLog {
  recordPostAttempt(attempt: NewInboundPostAttempt): Promise<void>;
  listPostAttempts(
    subAccountId: number,
    messageId: string,
    query: Pick<ListQuery, 'limit' | 'offset'>,
  ): Promise<InboundPostAttemptRecord[]>;
  deletePostAttemptsBefore(before: EpochNs, limit: number): Promise<number>;
}
