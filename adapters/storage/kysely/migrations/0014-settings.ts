import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Instance-wide settings, one row per name: the check value of the instance secret (written by
 * the first node that starts, compared by every later one), never the secret itself.
 */
export function settingsMigration(_dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('settings')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
    },
  };
}
