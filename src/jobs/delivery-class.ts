/**
 * The class and fair share of a send's delivery jobs (docs/shaping.md, "Fair queues and priority"):
 * what the claim orders them by. Every delivery job of a send carries the same ones: the send's
 * `deliver-batch` (or `deliver-scheduled`), the pages it splits into, and its messages' retries.
 */
import type { JobStream, SendBatchRecord } from '../store/index.js';

/** The `stream` and `fairKey` of a delivery job, as `EnqueueJob` takes them. */
export interface DeliveryClass {
  stream: JobStream | null;
  fairKey: string;
}

/**
 * The class of the send `batch` (its stored `stream`; a send accepted before classes existed is
 * neutral) and its share: the sending sub-account's, so sub-accounts take turns within a class.
 */
export function deliveryClass(batch: Pick<SendBatchRecord, 'subAccountId' | 'content'>): DeliveryClass {
  return { stream: batch.content.stream ?? null, fairKey: subAccountShare(batch.subAccountId) };
}

/** The fair key of a sub-account's jobs. */
export function subAccountShare(subAccountId: number): string {
  return `subaccount:${subAccountId}`;
}
