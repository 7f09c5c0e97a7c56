import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { withIdColumn } from '../dialect.js';

/**
 * The post log of received messages (docs/inbound.md): one row per POST of a message to its route's
 * webhook, read newest first per message (`GET /subaccount/inbound/message/{id}/attempt`) and purged
 * by age with the webhook delivery log. A table of its own rather than `webhook_deliveries`, whose
 * rows belong to a webhook resource (a required reference) and an event. Deleting a message, or its
 * sub-account, deletes its rows.
 */
export function inboundPostAttemptsMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('inbound_post_attempts')
        .$call(withIdColumn(dialect))
        .addColumn('message_id', 'text', (c) => c.notNull().references('inbound_messages.id').onDelete('cascade'))
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('sub_account_id', 'integer', (c) => c.notNull().references('sub_accounts.id').onDelete('cascade'))
        // No reference: the log keeps the route's id and URL of the attempt after the route is deleted.
        .addColumn('route_id', 'integer', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('result', 'text', (c) => c.notNull())
        .addColumn('status', 'integer')
        .addColumn('error', 'text')
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('created', 'bigint', (c) => c.notNull())
        .addColumn('next_retry_at', 'bigint')
        .execute();
      // "Newest for one message", and the cascade from a deleted message.
      await db.schema
        .createIndex('inbound_post_attempts_message')
        .on('inbound_post_attempts')
        .columns(['message_id', 'created', 'id'])
        .execute();
      // The retention job's "oldest first".
      await db.schema
        .createIndex('inbound_post_attempts_created')
        .on('inbound_post_attempts')
        .column('created')
        .execute();
    },
  };
}
