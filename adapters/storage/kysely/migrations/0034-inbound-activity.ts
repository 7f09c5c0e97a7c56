import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Received messages in the activity (docs/activity.md, "Received messages"): newest-first indexes
 * for the account's list and its address filters, and one for the replies threaded to a sent
 * message (`GET …/message/{id}`'s `replies`). The addresses are kept as received, so their
 * indexes are on the lower-cased text the filters compare (an expression index, on SQLite and
 * PostgreSQL alike).
 */
export function inboundActivityMigration(_dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('inbound_messages_account')
        .on('inbound_messages')
        .columns(['account_id', 'received_at', 'id'])
        .execute();
      await sql`create index inbound_messages_recipient on inbound_messages (account_id, lower(rcpt_to), received_at, id)`.execute(
        db,
      );
      await sql`create index inbound_messages_sender on inbound_messages (account_id, lower(from_address), received_at, id)`.execute(
        db,
      );
      await db.schema
        .createIndex('inbound_messages_in_reply_to')
        .on('inbound_messages')
        .columns(['in_reply_to_message_id', 'received_at'])
        .execute();
    },
  };
}
