import type { Day } from '../model/dates.js';

/**
 * The statistics counters that are stored (src/stats/counters.ts adds the derived `sent`): the
 * columns of every stats row.
 */
export const STORED_COUNTERS = [
  'processed',
  'dropped',
  'smtpDropped',
  'delivered',
  'softBounced',
  'hardBounced',
  'opened',
  'clicked',
  'unsubscribed',
  'spam',
] as const;

/** A stored counter's name. */
export type StoredCounter = (typeof STORED_COUNTERS)[number];

/** Values of the stored counters. */
export type StoredCounters = Record<StoredCounter, number>;

/** The group key of the row that counts all mail of a sub-account, whatever its groups. */
export const ALL_MAIL = '';

/** Counters to add for one sub-account, day and group. */
export interface StatsIncrement {
  accountId: number;
  subAccountId: number;
  /** UTC day the events happened on. */
  day: Day;
  /** A group name, or {@link ALL_MAIL} for the row every message counts in. */
  group: string;
  counters: Partial<Record<StoredCounter, number>>;
}

/** Whose counters to read: one sub-account, or all sub-accounts of an account; one group or all mail. */
export interface StatsScope {
  accountId: number;
  /** Omitted: the sum over every sub-account of the account. */
  subAccountId?: number;
  /** Omitted: {@link ALL_MAIL}. */
  group?: string;
}

/**
 * Daily statistics counters.
 *
 * - `increment` MUST be additive and atomic per row: 50 concurrent increments of 1 add exactly 50.
 * - Reads MUST cost in proportion to the number of days (and sub-accounts) read, never to the
 *   number of events counted: counters are stored per (sub-account, day, group).
 * - Reads MUST NOT see another account's or (when `subAccountId` is given) sub-account's counters.
 * - `groups` MUST answer the distinct group names (never {@link ALL_MAIL}) that have a counters row
 *   in the scope (its `group` is ignored) on a day of [from, to], ascending, at most `limit`.
 */
export interface StatsStore {
  increment(entries: readonly StatsIncrement[]): Promise<void>;
  /** Per-day sums for the days in [from, to] that have counters (days without any are absent). */
  daily(scope: StatsScope, from: Day, to: Day): Promise<Array<{ day: Day; counters: StoredCounters }>>;
  /** Sums over [from, to]. */
  total(scope: StatsScope, from: Day, to: Day): Promise<StoredCounters>;
  /** The group names with counters on a day of [from, to], ascending (see the contract above). */
  groups(scope: Omit<StatsScope, 'group'>, from: Day, to: Day, limit: number): Promise<string[]>;
}
