import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * IP warmup: progress per IP, sends per IP, provider and UTC day (daily caps), and traffic per
 * warmup, provider and interval window (stage holds). Rows go with their IP (cascade).
 */
export function ipWarmupMigration(_dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('ip_warmup_progress')
        .addColumn('ip_id', 'integer', (c) => c.primaryKey().references('ips.id').onDelete('cascade'))
        .addColumn('started_at', 'bigint', (c) => c.notNull())
        .addColumn('evaluated', 'integer', (c) => c.notNull())
        // JSON array of 12 integers: boundaries that held each provider.
        .addColumn('held', 'text', (c) => c.notNull())
        .addColumn('updated', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('ip_daily_sends')
        .addColumn('ip_id', 'integer', (c) => c.notNull().references('ips.id').onDelete('cascade'))
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('provider', 'integer', (c) => c.notNull())
        .addColumn('sent', 'bigint', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('ip_daily_sends_pk', ['ip_id', 'day', 'provider'])
        .execute();

      await db.schema
        .createTable('ip_warmup_traffic')
        .addColumn('ip_id', 'integer', (c) => c.notNull().references('ips.id').onDelete('cascade'))
        .addColumn('started_at', 'bigint', (c) => c.notNull())
        .addColumn('window_index', 'integer', (c) => c.notNull())
        .addColumn('provider', 'integer', (c) => c.notNull())
        .addColumn('sent', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('bounced', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('deferred', 'bigint', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('ip_warmup_traffic_pk', ['ip_id', 'started_at', 'window_index', 'provider'])
        .execute();
    },
  };
}
