import type { DbInt } from '../schema.js';

/** The progress of an IP's current warmup (one row per IP). */
export interface IpWarmupProgressTable {
  ip_id: DbInt;
  started_at: DbInt;
  evaluated: DbInt;
  /** JSON array of 12 integers. */
  held: string;
  updated: DbInt;
}

/** Sends of a warming IP per UTC day and mailbox provider. */
export interface IpDailySendsTable {
  ip_id: DbInt;
  day: string;
  provider: DbInt;
  sent: DbInt;
}

/** Traffic of one warmup per interval window and mailbox provider. */
export interface IpWarmupTrafficTable {
  ip_id: DbInt;
  started_at: DbInt;
  window_index: DbInt;
  provider: DbInt;
  sent: DbInt;
  bounced: DbInt;
  deferred: DbInt;
}

/** Tables of the IP warmup area. */
export interface WarmupTables {
  ip_warmup_progress: IpWarmupProgressTable;
  ip_daily_sends: IpDailySendsTable;
  ip_warmup_traffic: IpWarmupTrafficTable;
}
