import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { groupKey } from '../activity-keys.js';

/** Sends read per step of the backfill: bounded memory on a large table. */
const BACKFILL_PAGE = 500;

/**
 * Activity queries (docs/activity.md): the lower-cased recipient and sender and the send's groups
 * on each message (so each filter is a column of the row, not JSON of its send), and the
 * newest-first indexes that keep a filtered page an index range scan at any table size; plus the
 * timestamp indexes retention deletes by. Existing rows are backfilled from their sends.
 */
export function activityMigration(_dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const typed = db as unknown as Kysely<{
        messages: { to_key: string; from_key: string; group_key: string; to_email: string; batch_id: string };
        send_batches: { id: string; content: string };
      }>;
      for (const column of ['to_key', 'from_key', 'group_key']) {
        await db.schema
          .alterTable('messages')
          .addColumn(column, 'text', (c) => c.notNull().defaultTo(''))
          .execute();
      }
      await sql`update messages set to_key = lower(to_email)`.execute(db);
      let after = '';
      for (;;) {
        const sends = await typed
          .selectFrom('send_batches')
          .select(['id', 'content'])
          .where('id', '>', after)
          .orderBy('id')
          .limit(BACKFILL_PAGE)
          .execute();
        for (const send of sends) {
          const content = JSON.parse(send.content) as { from: { email: string }; groups: string[] };
          await typed
            .updateTable('messages')
            .set({ from_key: content.from.email.toLowerCase(), group_key: groupKey(content.groups) })
            .where('batch_id', '=', send.id)
            .execute();
        }
        if (sends.length < BACKFILL_PAGE) break;
        after = sends[sends.length - 1]!.id;
      }
      const index = (name: string, table: string, columns: string[]) =>
        db.schema.createIndex(name).on(table).columns(columns).execute();
      await index('messages_activity', 'messages', ['account_id', 'submitted_at', 'id']);
      await index('messages_activity_sub', 'messages', ['account_id', 'sub_account_id', 'submitted_at', 'id']);
      await index('messages_activity_to', 'messages', ['account_id', 'to_key', 'submitted_at', 'id']);
      await index('messages_activity_from', 'messages', ['account_id', 'from_key', 'submitted_at', 'id']);
      await index('messages_submitted', 'messages', ['submitted_at']);
      await index('events_activity', 'events', ['account_id', 'created', 'id']);
      await index('events_activity_sub', 'events', ['account_id', 'sub_account_id', 'created', 'id']);
      await index('events_created', 'events', ['created']);
    },
  };
}
