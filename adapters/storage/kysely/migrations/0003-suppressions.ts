import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { withIdColumn } from '../dialect.js';

/** The suppression list: one row per (sub-account, lower-cased address). */
export function suppressionsMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('suppressions')
        .$call(withIdColumn(dialect, true))
        .addColumn('sub_account_id', 'integer', (c) => c.notNull().references('sub_accounts.id').onDelete('cascade'))
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('email_key', 'text', (c) => c.notNull())
        .addColumn('type', 'integer', (c) => c.notNull())
        .addColumn('smtp_error', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created', 'bigint', (c) => c.notNull())
        // The identity of a suppression, the target of ON CONFLICT DO NOTHING, and the index that
        // makes isSuppressed / suppressedAmong single lookups.
        .addUniqueConstraint('suppressions_sub_account_email_key', ['sub_account_id', 'email_key'])
        .execute();
      // Listing by date range without scanning the whole list of a large sub-account.
      await db.schema
        .createIndex('suppressions_sub_account_created')
        .on('suppressions')
        .columns(['sub_account_id', 'created'])
        .execute();
    },
  };
}
