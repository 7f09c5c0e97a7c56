import type { Migration, MigrationProvider } from 'kysely';
import type { DialectName } from '../dialect.js';
import { accountsMigration } from './0001-accounts.js';

/*
 * Versioned migrations, applied in name order on start. Never edit a migration that has shipped:
 * add the next number instead.
 */
const migrationFactories: Record<string, (dialect: DialectName) => Migration> = {
  '0001-accounts': accountsMigration,
};

/** The Kysely migration provider of the mailplane schema for one dialect. */
export function mailplaneMigrations(dialect: DialectName): MigrationProvider {
  return {
    getMigrations: () =>
      Promise.resolve(
        Object.fromEntries(Object.entries(migrationFactories).map(([name, make]) => [name, make(dialect)])),
      ),
  };
}
