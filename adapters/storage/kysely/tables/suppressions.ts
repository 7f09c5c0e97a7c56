import type { DbId, DbInt } from '../schema.js';

/** One suppressed address of one sub-account. */
export interface SuppressionsTable {
  id: DbId;
  sub_account_id: DbInt;
  /** The address as first added, for display. */
  email: string;
  /** `email` lower-cased by the application: the case-insensitive identity and search key. */
  email_key: string;
  /** 0 manual, 1 unsubscribe, 2 hard bounce, 3 spam complaint. */
  type: DbInt;
  smtp_error: string;
  created: DbInt;
}

/** The tables of the suppression list. */
export interface SuppressionTables {
  suppressions: SuppressionsTable;
}
