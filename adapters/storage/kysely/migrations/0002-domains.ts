import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { withIdColumn } from '../dialect.js';

/** Sending domains of sub-accounts, with their DKIM keys and verification state. */
export function domainsMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('domains')
        .$call(withIdColumn(dialect))
        .addColumn('sub_account_id', 'integer', (c) => c.notNull().references('sub_accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('dkim_selector', 'text', (c) => c.notNull())
        .addColumn('dkim_public_key', 'text', (c) => c.notNull())
        .addColumn('dkim_private_key_sealed', 'text', (c) => c.notNull())
        .addColumn('return_path_host', 'text', (c) => c.notNull())
        .addColumn('return_path_target', 'text', (c) => c.notNull())
        .addColumn('track_host', 'text', (c) => c.notNull())
        .addColumn('track_target', 'text', (c) => c.notNull())
        .addColumn('dkim_verified', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('spf_verified', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('dmarc_verified', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('return_path_verified', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('track_verified', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('verified', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('dkim_failure_reason', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('spf_failure_reason', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('dmarc_failure_reason', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('track_failure_reason', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('return_path_failure_reason', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('dns_provider', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('domain_registered_date', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('last_checked_at', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('created', 'bigint', (c) => c.notNull())
        .addColumn('updated', 'bigint', (c) => c.notNull())
        // Also the index behind findByName, which the send path uses on every request.
        .addUniqueConstraint('domains_sub_account_name_key', ['sub_account_id', 'name'])
        .execute();
    },
  };
}
