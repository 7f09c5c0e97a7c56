import type { DbInt } from '../schema.js';

/** One row per (sub-account, UTC day, group); `grp` '' counts all mail. */
export interface StatsDailyTable {
  account_id: DbInt;
  sub_account_id: DbInt;
  day: string;
  grp: string;
  processed: DbInt;
  dropped: DbInt;
  smtp_dropped: DbInt;
  delivered: DbInt;
  soft_bounced: DbInt;
  hard_bounced: DbInt;
  opened: DbInt;
  clicked: DbInt;
  unsubscribed: DbInt;
  spam: DbInt;
}

/** Tables of the statistics area. */
export interface StatsTables {
  stats_daily: StatsDailyTable;
}
