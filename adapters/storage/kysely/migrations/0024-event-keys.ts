import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * The message's filter keys on each event row (docs/performance.md): the recipient, sender and
 * group keys (fixed for a message's life) and its status and pool (kept in step by the store's
 * `recordOutcome`), with newest-first indexes like the messages' ones. The event list filtered by
 * a message property was a walk of the account's events with one message lookup per event (a
 * page cost 100 / share-of-the-value lookups, read from disk once the messages outgrow memory);
 * with these columns each filter is an index range of the events table alone.
 *
 * Existing events are backfilled by one `UPDATE … FROM messages` (SQLite 3.33+ and PostgreSQL
 * share the syntax): on a large table this rewrites every event row and takes time (minutes per
 * ten million events), so plan the upgrade. Events whose message is gone keep the defaults.
 */
export function eventKeysMigration(_dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const column of ['to_key', 'from_key', 'group_key', 'status']) {
        await db.schema
          .alterTable('events')
          .addColumn(column, 'text', (c) => c.notNull().defaultTo(''))
          .execute();
      }
      await db.schema.alterTable('events').addColumn('ip_pool_id', 'integer').execute();
      await sql`update events set to_key = m.to_key, from_key = m.from_key, group_key = m.group_key, status = m.status, ip_pool_id = m.ip_pool_id
        from messages as m where m.id = events.message_id`.execute(db);
      const index = (name: string, columns: string[]) =>
        db.schema.createIndex(name).on('events').columns(columns).execute();
      await index('events_activity_to', ['account_id', 'to_key', 'created', 'id']);
      await index('events_activity_from', ['account_id', 'from_key', 'created', 'id']);
      await index('events_activity_status', ['account_id', 'status', 'created', 'id']);
      await index('events_activity_pool', ['account_id', 'ip_pool_id', 'created', 'id']);
    },
  };
}
