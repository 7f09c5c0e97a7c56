import type { DbId, DbInt } from '../schema.js';

/** The columns every suppression list has, whoever owns it. */
interface SuppressionColumns {
  id: DbId;
  /** The address as first added (or `*@domain`), for display. */
  email: string;
  /** `email` lower-cased by the application: the case-insensitive identity and search key. */
  email_key: string;
  /** 0 manual, 1 unsubscribe, 2 hard bounce, 3 spam complaint. */
  type: DbInt;
  smtp_error: string;
  created: DbInt;
  /** When it stops suppressing (nanoseconds); `null`: never. */
  expires: DbInt | null;
}

/** One suppressed address of one sub-account. */
export interface SuppressionsTable extends SuppressionColumns {
  sub_account_id: DbInt;
}

/** One suppressed address of an account's list, which applies to all its sub-accounts. */
export interface AccountSuppressionsTable extends SuppressionColumns {
  account_id: DbInt;
}

/** The tables of the suppression lists. */
export interface SuppressionTables {
  suppressions: SuppressionsTable;
  account_suppressions: AccountSuppressionsTable;
}
