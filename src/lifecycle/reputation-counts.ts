/**
 * What the reputation guard's hourly counters (src/store/reputation-store.ts) add for the events
 * of messages: the daily counters the lifecycle adds (src/lifecycle/table.ts), filed under the
 * message's sub-account, sending domain, recipient's mailbox provider and IP, in the hour they
 * happened. Acceptance counts many messages at once, everything later one event at a time; both
 * come through {@link reputationIncrements}, so the buckets are chosen in one place.
 */
import { providerOfAddress } from '../routing/providers.js';
import {
  hourOfMs,
  REPUTATION_COUNTERS,
  type ReputationCounter,
  type ReputationCounters,
  type ReputationIncrement,
} from '../store/reputation-store.js';
import type { StoredCounter } from '../store/stats-store.js';
import type { LifecycleOutcome } from './table.js';

/** The daily counters that have a reputation counter of the same meaning (clicks and smtpDropped have none). */
const FROM_DAILY: Partial<Record<StoredCounter, ReputationCounter>> = {
  processed: 'processed',
  dropped: 'dropped',
  delivered: 'delivered',
  softBounced: 'softBounced',
  hardBounced: 'hardBounced',
  opened: 'opened',
  unsubscribed: 'unsubscribed',
  spam: 'spam',
};

/**
 * The delivery attempts' outcomes that end the message: it was delivered, refused for good, or
 * given up after its retries. Each counts the message once as `sent` from the attempt's IP: the
 * denominator of an IP's or a pool's rates, which `processed` (counted at accept, before any IP
 * was chosen) cannot be. A refusal for policy (`smtp-dropped`) counts too: it is what a listed IP
 * gets, and leaving it out would hide exactly the mail an IP's rates must see.
 */
const ENDS_DELIVERY: ReadonlySet<LifecycleOutcome> = new Set<LifecycleOutcome>([
  'delivered',
  'hard-bounced',
  'smtp-dropped',
  'retries-exhausted',
  'policy-retries-exhausted',
]);

/** Whether `outcome` is a delivery attempt that ended its message (counted as `sent`). */
export function endsDelivery(outcome: LifecycleOutcome): boolean {
  return ENDS_DELIVERY.has(outcome);
}

/** Every reputation counter at zero. */
export function zeroReputationCounters(): ReputationCounters {
  return Object.fromEntries(REPUTATION_COUNTERS.map((name) => [name, 0])) as ReputationCounters;
}

/** The key of an increment's bucket as one text (its six key fields), to merge or find buckets by. */
export function reputationBucketKey(bucket: Omit<ReputationIncrement, 'counters'>): string {
  return `${bucket.accountId}:${bucket.subAccountId}:${bucket.hour}:${bucket.domainId}:${bucket.provider}:${bucket.ipId}`;
}

/** One message's event, as the reputation counters need it. */
export interface ReputationEvent {
  accountId: number;
  subAccountId: number;
  /** The send's sending domain (`SendBatchRecord.domainId`). */
  domainId: number | null;
  /** The envelope recipient's address: its domain picks the mailbox provider. */
  recipient: string;
  /** The IP the message left from on this event's attempt (`null`: none yet, or a TPSP). */
  ipId: number | null;
  /** When it happened, epoch milliseconds. */
  atMs: number;
  /** The daily counters the event adds. */
  counters: Partial<Record<StoredCounter, number>>;
  /** The event is the delivery attempt that ended the message (see {@link endsDelivery}). */
  sent?: boolean;
}

/**
 * The increments of `events`, one per bucket they fall in (summed): a 1,000-recipient send to one
 * provider adds to one or two buckets, not 1,000. Events that add no reputation counter add nothing.
 */
export function reputationIncrements(events: Iterable<ReputationEvent>): ReputationIncrement[] {
  const buckets = new Map<string, ReputationIncrement>();
  for (const event of events) {
    const counters: Partial<ReputationCounters> = {};
    let any = false;
    for (const [daily, value] of Object.entries(event.counters) as Array<[StoredCounter, number]>) {
      const name = FROM_DAILY[daily];
      if (name === undefined || !value) continue;
      counters[name] = value;
      any = true;
    }
    if (event.sent === true) {
      counters.sent = 1;
      any = true;
    }
    if (!any) continue;
    const bucket = {
      accountId: event.accountId,
      subAccountId: event.subAccountId,
      hour: hourOfMs(event.atMs),
      domainId: event.domainId ?? 0,
      provider: providerOfAddress(event.recipient),
      ipId: event.ipId ?? 0,
    };
    const key = reputationBucketKey(bucket);
    const entry = buckets.get(key) ?? { ...bucket, counters: {} };
    for (const [name, value] of Object.entries(counters) as Array<[ReputationCounter, number]>)
      entry.counters[name] = (entry.counters[name] ?? 0) + value;
    buckets.set(key, entry);
  }
  return [...buckets.values()];
}
