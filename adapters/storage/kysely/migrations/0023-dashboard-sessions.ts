import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Dashboard sessions (`mailplane/dashboard`): one row per signed-in browser, keyed by the lookup
 * hash of the cookie's session id, holding the API key encrypted; expired rows are pruned by
 * `expires_at`.
 */
export function dashboardSessionsMigration(_dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('dashboard_sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('sealed_key', 'text', (c) => c.notNull())
        // Epoch milliseconds.
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('dashboard_sessions_expires').on('dashboard_sessions').column('expires_at').execute();
    },
  };
}
