import type { Kysely } from 'kysely';
import type { DialectName } from './dialect.js';
import type { JobsDueSignal } from './jobs-due.js';
import type { Database } from './schema.js';

/**
 * What every Kysely-backed aggregate store works with: the query builder (the root instance, or a
 * transaction when the store was handed out by `transaction()`), and the dialect.
 */
export interface KyselyStoreContext {
  db: Kysely<Database>;
  dialect: DialectName;
  /** True inside `MailplaneStore.transaction`: Kysely cannot open a transaction within one. */
  inTransaction: boolean;
  /** Wakes job runners after enqueues commit (`MailplaneStore.onJobsDue`). */
  jobsDue: JobsDueSignal;
  /** Inside a transaction: set when it enqueued jobs, so the signal is raised once it commits. */
  enqueued?: { value: boolean };
}

/**
 * Runs `work` atomically: in the current transaction when there is one, else in a new one.
 * Stores use it for multi-statement writes that the contract says MUST be atomic.
 */
export function atomically<T>(ctx: KyselyStoreContext, work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  return ctx.inTransaction ? work(ctx.db) : ctx.db.transaction().execute(work);
}
