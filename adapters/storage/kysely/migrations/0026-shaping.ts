import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Traffic shaping (docs/shaping.md): one state row per source × destination (the rate's next free
 * slot, the adaptive factor, a suspension, the last push-back), the messages each node has in flight
 * per key (rows expire with their lease, so a node that died holds nothing for long), and each
 * account's own rule table as JSON (replaced whole through the API).
 */
export function shapingMigration(dialect: DialectName) {
  const real = dialect === 'postgres' ? 'double precision' : 'real';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('shaping_state')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'integer', (c) => c.notNull())
        // Epoch milliseconds throughout.
        .addColumn('next_slot_at', real, (c) => c.notNull())
        .addColumn('factor', real, (c) => c.notNull())
        .addColumn('suspended_until', 'bigint')
        .addColumn('reason', 'text')
        .addColumn('last_reply', 'text')
        .addColumn('last_reply_at', 'bigint')
        .addColumn('throttled_at', 'bigint')
        .addColumn('recovered_at', 'bigint')
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('shaping_state_account')
        .on('shaping_state')
        .columns(['account_id', 'updated_at'])
        .execute();
      await db.schema.createIndex('shaping_state_suspended').on('shaping_state').column('suspended_until').execute();
      await db.schema
        .createTable('shaping_flights')
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('in_flight', 'integer', (c) => c.notNull())
        .addColumn('lease_until', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('shaping_flights_pk', ['key', 'holder'])
        .execute();
      await db.schema
        .createTable('shaping_rules')
        .addColumn('account_id', 'integer', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
        .addColumn('rules', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  };
}
