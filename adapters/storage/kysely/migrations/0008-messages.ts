import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/** Send requests, per-recipient messages and their event log. */
export function messagesMigration(_dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('send_batches')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('sub_account_id', 'integer', (c) => c.notNull())
        .addColumn('domain_id', 'integer')
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('created', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('messages')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('batch_id', 'text', (c) => c.notNull())
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('sub_account_id', 'integer', (c) => c.notNull())
        .addColumn('to_email', 'text', (c) => c.notNull())
        .addColumn('to_name', 'text', (c) => c.notNull())
        .addColumn('cc', 'text', (c) => c.notNull())
        .addColumn('bcc', 'text', (c) => c.notNull())
        .addColumn('custom_fields', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('submitted_at', 'bigint', (c) => c.notNull())
        .addColumn('updated', 'bigint', (c) => c.notNull())
        .addColumn('ip_id', 'integer')
        .addColumn('ip_pool_id', 'integer')
        .addColumn('tpsp_id', 'integer')
        .addColumn('smtp_code', 'integer')
        .addColumn('smtp_description', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema
        .createIndex('messages_batch_status')
        .on('messages')
        .columns(['batch_id', 'status', 'id'])
        .execute();
      await db.schema
        .createTable('events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('message_id', 'text', (c) => c.notNull())
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('sub_account_id', 'integer', (c) => c.notNull())
        .addColumn('type', 'integer', (c) => c.notNull())
        .addColumn('created', 'bigint', (c) => c.notNull())
        .addColumn('metadata', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('events_message').on('events').columns(['message_id', 'created']).execute();
    },
  };
}
