import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

const COUNTER_COLUMNS = [
  'processed',
  'dropped',
  'sent',
  'delivered',
  'soft_bounced',
  'hard_bounced',
  'opened',
  'unsubscribed',
  'spam',
] as const;

/**
 * The reputation guard's hourly counters (docs/reputation.md, "Counters"). The primary key leads
 * with the account and sub-account, which every scoped sum names; `(account_id, hour)` serves an
 * account-wide sum of a few hours (an IP, a pool, a provider, a domain) without reading the
 * account's whole week; `(hour)` serves the sums of every sub-account and the retention's delete.
 * No foreign keys: every accept and delivery outcome writes here, and the rows outlive nothing for
 * long (retention deletes them after 8 days).
 */
export function reputationMigration(_dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      let table = db.schema
        .createTable('reputation_hourly')
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('sub_account_id', 'integer', (c) => c.notNull())
        .addColumn('hour', 'integer', (c) => c.notNull())
        .addColumn('domain_id', 'integer', (c) => c.notNull())
        .addColumn('provider', 'integer', (c) => c.notNull())
        .addColumn('ip_id', 'integer', (c) => c.notNull());
      for (const column of COUNTER_COLUMNS) table = table.addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0));
      await table
        .addPrimaryKeyConstraint('reputation_hourly_pk', [
          'account_id',
          'sub_account_id',
          'hour',
          'domain_id',
          'provider',
          'ip_id',
        ])
        .execute();
      await db.schema
        .createIndex('reputation_hourly_account_hour')
        .on('reputation_hourly')
        .columns(['account_id', 'hour'])
        .execute();
      await db.schema.createIndex('reputation_hourly_hour').on('reputation_hourly').column('hour').execute();
    },
  };
}
