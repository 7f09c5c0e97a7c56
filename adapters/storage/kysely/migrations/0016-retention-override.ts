import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * The per-sub-account retention override (docs/activity.md), and the activity indexes the
 * activity benchmark showed missing (docs/performance.md): a status, pool or event-type filter was
 * a walk of the account's newest-first index that dropped every other row (a page read 100 /
 * share-of-the-value rows, and a value absent from recent mail read the whole account); with
 * these each is an index range.
 */
export function retentionOverrideMigration(_dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // Days a sub-account's messages and events are kept; null = the instance default.
      await db.schema.alterTable('sub_accounts').addColumn('retention_days', 'integer').execute();
      const index = (name: string, table: string, columns: string[]) =>
        db.schema.createIndex(name).on(table).columns(columns).execute();
      await index('messages_activity_status', 'messages', ['account_id', 'status', 'submitted_at', 'id']);
      await index('messages_activity_pool', 'messages', ['account_id', 'ip_pool_id', 'submitted_at', 'id']);
      await index('events_activity_type', 'events', ['account_id', 'type', 'created', 'id']);
    },
  };
}
