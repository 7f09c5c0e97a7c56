import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { withIdColumn } from '../dialect.js';

/**
 * The webhook delivery log: one row per POST attempt (first tries, retries, replays), read newest
 * first per webhook (the dashboard, `GET /account/webhook/{id}/delivery`) and purged by age by the
 * retention job. Deleting a webhook deletes its log.
 */
export function webhookDeliveriesMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('webhook_deliveries')
        .$call(withIdColumn(dialect))
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('webhook_id', 'integer', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('replay_id', 'text')
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('result', 'text', (c) => c.notNull())
        .addColumn('status', 'integer')
        .addColumn('error', 'text')
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        // Nanoseconds since the epoch, as every other time of the schema.
        .addColumn('created', 'bigint', (c) => c.notNull())
        .addColumn('next_retry_at', 'bigint')
        .execute();
      // "Newest for one webhook" (the reads also filter by account, which the webhook implies).
      await db.schema
        .createIndex('webhook_deliveries_webhook_created')
        .on('webhook_deliveries')
        .columns(['webhook_id', 'created', 'id'])
        .execute();
      // The retention job's "oldest first".
      await db.schema.createIndex('webhook_deliveries_created').on('webhook_deliveries').column('created').execute();
    },
  };
}
