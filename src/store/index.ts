/**
 * The storage contract: one interface per aggregate, gathered in {@link MailplaneStore}.
 * `mailplane/testing` exports `runStoreConformance`, which every implementation must pass.
 */
import type { AccountStore } from './account-store.js';
import type { SubAccountStore } from './sub-account-store.js';

export type * from './account-store.js';
export type * from './sub-account-store.js';
export type { Outcome } from './outcome.js';
export { SubAccountType } from './sub-account-store.js';

/**
 * A complete storage backend.
 *
 * `transaction` MUST run `work` against a store whose every call is part of one database
 * transaction, committed when `work` resolves and rolled back when it rejects. Calls made on the
 * outer store while a transaction runs MUST NOT see its uncommitted writes.
 */
export interface MailplaneStore {
  readonly accounts: AccountStore;
  readonly subAccounts: SubAccountStore;
  transaction<T>(work: (store: MailplaneStore) => Promise<T>): Promise<T>;
  /** Releases connections; the store is unusable afterwards. */
  close(): Promise<void>;
}
