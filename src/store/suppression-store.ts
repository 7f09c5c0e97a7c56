import type { EpochNs } from '../model/time.js';

/**
 * Why an address is suppressed. The numbers are the reference document's `Suppression.reason`
 * (0 = manual, 1 = unsubscribe, 2 = hard bounce, 3 = spam complaint).
 */
export const SuppressionType = { Manual: 0, Unsubscribe: 1, HardBounce: 2, SpamComplaint: 3 } as const;
/** 0 = manual, 1 = unsubscribe, 2 = hard bounce, 3 = spam complaint. */
export type SuppressionType = (typeof SuppressionType)[keyof typeof SuppressionType];

/**
 * Whose list a suppression is on: a sub-account's (its id), or an account's, which applies to every
 * sub-account of the account.
 */
export type SuppressionOwner = number | { accountId: number };

/** One suppressed address (or `*@domain`, every address of a domain) on one list. */
export interface SuppressionRecord {
  id: number;
  /** The sub-account whose list it is on; `null` on an account's list. */
  subAccountId: number | null;
  /** The account whose list it is on; `null` on a sub-account's list. */
  accountId: number | null;
  /**
   * The address as it was first added (its case is kept for display; comparisons ignore case), or
   * `*@domain`: every address of that domain (not its subdomains).
   */
  email: string;
  type: SuppressionType;
  /** The receiving server's reply for a hard bounce; empty for the other types. */
  smtpError: string;
  created: EpochNs;
  /** When it stops suppressing (retention then removes it); `null`: never. */
  expires: EpochNs | null;
}

/** One address to suppress, as {@link SuppressionStore.add} takes it. */
export interface NewSuppression {
  email: string;
  type: SuppressionType;
  /** The SMTP reply of a hard bounce; defaults to the empty string. */
  smtpError?: string;
  created: EpochNs;
  /** When it stops suppressing; omitted or `null`: never. */
  expires?: EpochNs | null;
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
  /** Only records with a greater id (the export's cursor: linear however long the list). */
  afterId?: number;
  limit: number;
  offset: number;
}

/**
 * Storage of the suppression lists: one record per address (or `*@domain`) per list, a list being a
 * sub-account's or an account's ({@link SuppressionOwner}). Every read and write is scoped by its
 * owner. Addresses are compared case-insensitively (a store keeps a lower-cased key), so
 * `Bob@Example.com` and `bob@example.com` are one suppression.
 *
 * - `add` MUST be an atomic, idempotent upsert that is safe under concurrency: adding an address
 *   that is already suppressed (in any case, of any type, also by many concurrent calls) leaves
 *   exactly one record and changes nothing in it (the first type, `created`, `smtpError` and
 *   `expires` stay), except that a record expired at the new entry's `created` is replaced by it.
 *   Within one call the first entry of an address wins. It answers the stored record of every
 *   distinct address given, in the order of first appearance, whether it was new or not.
 *   Adding to a sub-account (or account) that does not exist (deleted since the message an
 *   unsubscribe or a bounce is about was sent) MUST add nothing, answer `[]` and not throw, also
 *   when it is deleted concurrently: a constraint of the store never reaches the caller.
 * - `remove` deletes the given addresses whatever their type and answers how many records went.
 * - `list` MUST order by id ascending; it shows expired records until they are deleted.
 * - `isSuppressed` and `suppressedAmong` answer for a sub-account's recipients: an address is
 *   suppressed when its own address or `*@` its domain is on the sub-account's list or on its
 *   account's, in a record that has not expired at `now`. `isSuppressed` MUST be a single indexed
 *   lookup, and `suppressedAmong` a single query for up to 1,000 addresses: the sending pipeline
 *   calls them for every recipient.
 * - `deleteExpired` deletes at most `limit` records expired at `now`, from every list, and answers
 *   how many went (retention calls it until it answers less than `limit`).
 */
export interface SuppressionStore {
  add(owner: SuppressionOwner, entries: readonly NewSuppression[]): Promise<SuppressionRecord[]>;
  remove(owner: SuppressionOwner, emails: readonly string[]): Promise<number>;
  list(owner: SuppressionOwner, filter: SuppressionFilter): Promise<SuppressionRecord[]>;
  /** The record of exactly that address (or `*@domain`) on the list, expired or not; `null` when there is none. */
  find(owner: SuppressionOwner, email: string): Promise<SuppressionRecord | null>;
  isSuppressed(subAccountId: number, email: string, now: EpochNs): Promise<boolean>;
  /**
   * The addresses of `emails` that are suppressed for the sub-account at `now`, spelled as given,
   * each once, in the order given. Empty input answers `[]` without a query.
   */
  suppressedAmong(subAccountId: number, emails: readonly string[], now: EpochNs): Promise<string[]>;
  deleteExpired(now: EpochNs, limit: number): Promise<number>;
}

/** The stored key of an address or `*@domain`: its lower-cased spelling. */
export const suppressionKey = (email: string): string => email.toLowerCase();

/**
 * The keys that suppress a recipient: its own, and `*@` its domain. An address without `@` (which
 * the API refuses earlier) has only its own.
 */
export function suppressionKeysOf(email: string): string[] {
  const key = suppressionKey(email);
  const at = key.lastIndexOf('@');
  return at < 0 || key.startsWith('*@') ? [key] : [key, `*${key.slice(at)}`];
}
