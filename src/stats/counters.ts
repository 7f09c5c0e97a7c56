/**
 * The statistics counters of the spec. Stored counters are incremented as events happen and never
 * recomputed from the event log; `sent` is derived on read as processed - dropped - smtpDropped,
 * so the identity holds on every read.
 */
import { STORED_COUNTERS, type StoredCounters } from '../store/stats-store.js';

/** The counters as the API returns them: stored ones plus the derived `sent`. */
export type StatCounters = StoredCounters & { sent: number };

/** All stored counters at zero. */
export function zeroCounters(): StoredCounters {
  return Object.fromEntries(STORED_COUNTERS.map((name) => [name, 0])) as StoredCounters;
}

/** Adds the derived `sent`, in the field order of the reference document's `Stat`. */
export function withSent(c: StoredCounters): StatCounters {
  return {
    processed: c.processed,
    sent: c.processed - c.dropped - c.smtpDropped,
    delivered: c.delivered,
    dropped: c.dropped,
    smtpDropped: c.smtpDropped,
    hardBounced: c.hardBounced,
    softBounced: c.softBounced,
    opened: c.opened,
    clicked: c.clicked,
    unsubscribed: c.unsubscribed,
    spam: c.spam,
  };
}
