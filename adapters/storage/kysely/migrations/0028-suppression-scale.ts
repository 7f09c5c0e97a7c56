import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { withIdColumn } from '../dialect.js';

/**
 * Suppression lists at scale (docs/suppressions.md): an optional expiry on every entry, and the
 * account's own list, which applies to every sub-account of the account. The accept check reads
 * both lists in one statement, each through its unique (owner, key) index, for the recipient's
 * address and `*@` its domain.
 */
export function suppressionScaleMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('suppressions').addColumn('expires', 'bigint').execute();
      // The export's cursor (`id > ?` of one sub-account, in id order) walks this index.
      await db.schema
        .createIndex('suppressions_sub_account_id')
        .on('suppressions')
        .columns(['sub_account_id', 'id'])
        .execute();
      // Retention's "expired first"; entries without an expiry are not in it on PostgreSQL.
      await db.schema
        .createIndex('suppressions_expires')
        .on('suppressions')
        .column('expires')
        .where('expires', 'is not', null)
        .execute();
      await db.schema
        .createTable('account_suppressions')
        .$call(withIdColumn(dialect, true))
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('email_key', 'text', (c) => c.notNull())
        .addColumn('type', 'integer', (c) => c.notNull())
        .addColumn('smtp_error', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created', 'bigint', (c) => c.notNull())
        .addColumn('expires', 'bigint')
        .addUniqueConstraint('account_suppressions_account_email_key', ['account_id', 'email_key'])
        .execute();
      await db.schema
        .createIndex('account_suppressions_account_id')
        .on('account_suppressions')
        .columns(['account_id', 'id'])
        .execute();
      await db.schema
        .createIndex('account_suppressions_expires')
        .on('account_suppressions')
        .column('expires')
        .where('expires', 'is not', null)
        .execute();
    },
  };
}
