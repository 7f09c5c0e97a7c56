import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * API rate-limit counters: one row per bucket holding its current fixed window, so the table grows
 * with the number of active keys, never with requests; stale rows are pruned by window start.
 */
export function rateLimitsMigration(_dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('rate_limits')
        .addColumn('bucket', 'text', (c) => c.primaryKey())
        // Epoch milliseconds of the window's start.
        .addColumn('window_start', 'bigint', (c) => c.notNull())
        .addColumn('used', 'bigint', (c) => c.notNull())
        // Whether the last hit was admitted (0/1): RETURNING cannot see the row's previous values.
        .addColumn('admitted', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('rate_limits_window').on('rate_limits').column('window_start').execute();
    },
  };
}
