import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Idempotency keys of sends: one row per sub-account and key, written in the send's transaction;
 * the primary key is what makes two concurrent sends with one key (on any nodes) commit once.
 * Expired rows are deleted by the retention job, through the `expires_ms` index.
 */
export function idempotencyMigration(_dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('idempotency_keys')
        .addColumn('sub_account_id', 'integer', (c) => c.notNull().references('sub_accounts.id').onDelete('cascade'))
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('request_hash', 'text', (c) => c.notNull())
        .addColumn('response', 'text', (c) => c.notNull())
        .addColumn('created_ms', 'bigint', (c) => c.notNull())
        .addColumn('expires_ms', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pkey', ['sub_account_id', 'key'])
        .execute();
      await db.schema.createIndex('idempotency_keys_expires').on('idempotency_keys').column('expires_ms').execute();
    },
  };
}
