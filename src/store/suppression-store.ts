import type { EpochNs } from '../model/time.js';

/**
 * Why an address is suppressed. The numbers are the reference document's `Suppression.reason`
 * (0 = manual, 1 = unsubscribe, 2 = hard bounce, 3 = spam complaint).
 */
export const SuppressionType = { Manual: 0, Unsubscribe: 1, HardBounce: 2, SpamComplaint: 3 } as const;
/** 0 = manual, 1 = unsubscribe, 2 = hard bounce, 3 = spam complaint. */
export type SuppressionType = (typeof SuppressionType)[keyof typeof SuppressionType];

/** One suppressed address of one sub-account. */
export interface SuppressionRecord {
  id: number;
  subAccountId: number;
  /** The address as it was first added (its case is kept for display; comparisons ignore case). */
  email: string;
  type: SuppressionType;
  /** The receiving server's reply for a hard bounce; empty for the other types. */
  smtpError: string;
  created: EpochNs;
}

/** One address to suppress, as {@link SuppressionStore.add} takes it. */
export interface NewSuppression {
  email: string;
  type: SuppressionType;
  /** The SMTP reply of a hard bounce; defaults to the empty string. */
  smtpError?: string;
  created: EpochNs;
}

/** What {@link SuppressionStore.list} filters on. Every filter is optional except paging. */
export interface SuppressionFilter {
  /** Only records created at or after this instant. */
  createdFrom?: EpochNs;
  /** Only records created strictly before this instant. */
  createdBefore?: EpochNs;
  type?: SuppressionType;
  /** Case-insensitive literal substring of the address. */
  search?: string;
  limit: number;
  offset: number;
}

/**
 * Storage of the suppression list: one record per address per sub-account. Every read and write
 * is scoped by `subAccountId`. Addresses are compared case-insensitively (a store keeps a
 * lower-cased key), so `Bob@Example.com` and `bob@example.com` are one suppression.
 *
 * - `add` MUST be an atomic, idempotent upsert that is safe under concurrency: adding an address
 *   that is already suppressed (in any case, of any type, also by many concurrent calls) leaves
 *   exactly one record and changes nothing in it (the first type, `created` and `smtpError` stay).
 *   Within one call the first entry of an address wins. It answers the stored record of every
 *   distinct address given, in the order of first appearance, whether it was new or not.
 *   Adding to a sub-account that does not exist (deleted since the message an unsubscribe or a
 *   bounce is about was sent) MUST add nothing, answer `[]` and not throw, also when the
 *   sub-account is deleted concurrently: a constraint of the store never reaches the caller.
 * - `remove` deletes the given addresses whatever their type and answers how many records went.
 * - `list` MUST order by id ascending.
 * - `isSuppressed` MUST be a single indexed lookup, and `suppressedAmong` a single query for up to
 *   1,000 addresses: the sending pipeline calls them for every recipient.
 */
export interface SuppressionStore {
  add(subAccountId: number, entries: readonly NewSuppression[]): Promise<SuppressionRecord[]>;
  remove(subAccountId: number, emails: readonly string[]): Promise<number>;
  list(subAccountId: number, filter: SuppressionFilter): Promise<SuppressionRecord[]>;
  /** The record of that address, or `null` when it is not suppressed. */
  find(subAccountId: number, email: string): Promise<SuppressionRecord | null>;
  isSuppressed(subAccountId: number, email: string): Promise<boolean>;
  /**
   * The addresses of `emails` that are suppressed, spelled as given, each once, in the order
   * given. Empty input answers `[]` without a query.
   */
  suppressedAmong(subAccountId: number, emails: readonly string[]): Promise<string[]>;
}
