import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { withIdColumn } from '../dialect.js';

/**
 * Messages the sandbox mail catcher captured: bounded per account (the newest are kept), so the
 * table stays small; `raw` is the message as received, base64 so both dialects store it as text.
 */
export function sandboxMessagesMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('sandbox_messages')
        .$call(withIdColumn(dialect, true))
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('message_id', 'text')
        .addColumn('mail_from', 'text', (c) => c.notNull())
        // JSON array of the envelope recipients.
        .addColumn('rcpt_to', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('raw', 'text', (c) => c.notNull())
        .addColumn('received', 'bigint', (c) => c.notNull())
        .execute();
      // Every query is one account's messages by id (list newest first, trim the oldest).
      await db.schema
        .createIndex('sandbox_messages_account')
        .on('sandbox_messages')
        .columns(['account_id', 'id'])
        .execute();
    },
  };
}
