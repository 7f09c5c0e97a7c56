import type { DbInt } from '../schema.js';

/**
 * Migration 0030: one row per (account, sub-account, hour, sending domain, mailbox provider, IP),
 * the reputation guard's hourly counters (src/store/reputation-store.ts).
 */
export interface ReputationHourlyTable {
  account_id: DbInt;
  sub_account_id: DbInt;
  /** Whole hours since the epoch (`hourOfMs`). */
  hour: DbInt;
  /** The sending domain's id, 0 for none. */
  domain_id: DbInt;
  /** The mailbox provider id (0-11). */
  provider: DbInt;
  /** The IP's id, 0 for none (at accept, or through a TPSP). */
  ip_id: DbInt;
  processed: DbInt;
  dropped: DbInt;
  sent: DbInt;
  delivered: DbInt;
  soft_bounced: DbInt;
  hard_bounced: DbInt;
  opened: DbInt;
  unsubscribed: DbInt;
  spam: DbInt;
}

/** Tables of the reputation counters. */
export interface ReputationTables {
  reputation_hourly: ReputationHourlyTable;
}
