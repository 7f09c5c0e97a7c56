/**
 * The counters of the reputation guard: what the alert rules and the automatic protection measure
 * (src/alerts/evaluation.ts). The daily statistics counters are per sub-account and day only; a
 * rule watches an IP, a pool, a sending domain or one mailbox provider over the last hour, so these
 * are kept per hour and per sub-account × sending domain × mailbox provider × IP.
 */

/**
 * The counters of a bucket. `processed` and `dropped` are counted at accept (without an IP);
 * `sent` once per message when its delivery ends through an IP (delivered, hard-bounced, or given
 * up after its retries), so that an IP's or a pool's rates have a denominator; the others as the
 * daily statistics count them (a soft bounce per deferral), with the IP the message left from.
 */
export const REPUTATION_COUNTERS = [
  'processed',
  'dropped',
  'sent',
  'delivered',
  'softBounced',
  'hardBounced',
  'opened',
  'unsubscribed',
  'spam',
] as const;

/** A reputation counter's name. */
export type ReputationCounter = (typeof REPUTATION_COUNTERS)[number];

/** Values of every reputation counter. */
export type ReputationCounters = Record<ReputationCounter, number>;

/** The hour of epoch milliseconds `ms`: whole hours since 1970-01-01T00:00Z. */
export const hourOfMs = (ms: number): number => Math.floor(ms / 3_600_000);

/** Counters to add to one bucket. */
export interface ReputationIncrement {
  accountId: number;
  subAccountId: number;
  /** The bucket's hour ({@link hourOfMs} of when the events happened). */
  hour: number;
  /** The message's sending domain (`SendBatchRecord.domainId`), or 0 when it had none. */
  domainId: number;
  /** The recipient's mailbox provider by its domain (`classifyByDomain`, 11 default when none). */
  provider: number;
  /** The IP the message left from, or 0 when none yet (at accept) or through a TPSP. */
  ipId: number;
  counters: Partial<ReputationCounters>;
}

/**
 * Whose counters to sum: always one account; each further field narrows it. `ipIds` selects the
 * buckets of any of those IPs (a pool's members); an empty list selects nothing.
 */
export interface ReputationScope {
  accountId: number;
  subAccountId?: number;
  domainId?: number;
  provider?: number;
  ipIds?: readonly number[];
}

/** One sub-account's sums, as {@link ReputationStore.totalsBySubAccount} answers them. */
export interface SubAccountReputation {
  accountId: number;
  subAccountId: number;
  counters: ReputationCounters;
}

/**
 * Hourly reputation counters.
 *
 * - `increment` MUST be additive and atomic per bucket (account, sub-account, hour, domain,
 *   provider, IP): concurrent increments all count.
 * - `total` sums the buckets of `scope` with `fromHour <= hour <= toHour` (every counter 0 when
 *   none); its cost grows with the buckets read, never with the events counted.
 * - `totalsBySubAccount` answers the sums per sub-account (every account) of the sub-accounts with
 *   at least `minProcessed` processed in the hours, ordered by account and sub-account id.
 * - `deleteBefore` removes the buckets with `hour < beforeHour`, at most `limit`, and answers how
 *   many it removed.
 */
export interface ReputationStore {
  increment(entries: readonly ReputationIncrement[]): Promise<void>;
  total(scope: ReputationScope, fromHour: number, toHour: number): Promise<ReputationCounters>;
  totalsBySubAccount(fromHour: number, toHour: number, minProcessed: number): Promise<SubAccountReputation[]>;
  deleteBefore(beforeHour: number, limit: number): Promise<number>;
}
