import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

const COUNTER_COLUMNS = [
  'processed',
  'dropped',
  'smtp_dropped',
  'delivered',
  'soft_bounced',
  'hard_bounced',
  'opened',
  'clicked',
  'unsubscribed',
  'spam',
] as const;

/** Daily statistics counters per sub-account, day and group. */
export function statsMigration(_dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      let table = db.schema
        .createTable('stats_daily')
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('sub_account_id', 'integer', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('grp', 'text', (c) => c.notNull());
      for (const column of COUNTER_COLUMNS) table = table.addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0));
      await table.addPrimaryKeyConstraint('stats_daily_pk', ['sub_account_id', 'day', 'grp']).execute();
      await db.schema
        .createIndex('stats_daily_account')
        .on('stats_daily')
        .columns(['account_id', 'grp', 'day'])
        .execute();
    },
  };
}
