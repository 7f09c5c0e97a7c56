import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { withIdColumn } from '../dialect.js';

/** Accounts, sub-accounts and their SMTP credentials. */
export function accountsMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('accounts')
        .$call(withIdColumn(dialect))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('api_key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('api_key_sealed', 'text', (c) => c.notNull())
        .addColumn('created', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('sub_accounts')
        .$call(withIdColumn(dialect))
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('name_key', 'text', (c) => c.notNull())
        .addColumn('company_name', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('type', 'integer', (c) => c.notNull())
        .addColumn('is_plus', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('blocked', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('blocked_at', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('block_reason', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('hb_exempt', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('generate_weekly_report', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('api_key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('api_key_sealed', 'text', (c) => c.notNull())
        .addColumn('default_ip_pool_id', 'integer')
        .addColumn('created', 'bigint', (c) => c.notNull())
        .addColumn('updated', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('sub_accounts_account_name_key', ['account_id', 'name_key'])
        .execute();

      await db.schema
        .createTable('smtp_auths')
        .$call(withIdColumn(dialect))
        .addColumn('sub_account_id', 'integer', (c) => c.notNull().references('sub_accounts.id').onDelete('cascade'))
        .addColumn('username', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('password_sealed', 'text', (c) => c.notNull())
        .addColumn('created', 'bigint', (c) => c.notNull())
        .addColumn('updated', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('smtp_auths_sub_account').on('smtp_auths').column('sub_account_id').execute();
    },
  };
}
