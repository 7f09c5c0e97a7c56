/**
 * Opening a store checks the schema in one query first (adapters/storage/kysely/connect.ts) and
 * leaves everything but "every migration of this version, and no other" to the migrator: a database
 * an earlier version left is migrated, and one a later version of mailplane migrated is refused.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openKyselyStore } from 'mailplane/storage/kysely';
import { execSql, migratedDatabaseUrl, storeKinds, type StoreKind, type TestDatabase } from '../support/databases.js';
import { withDatabaseAt } from '../support/migration-db.js';
import { mailplaneMigrations, migrateToLatest } from '../../adapters/storage/kysely/index.js';

describe.each(storeKinds)('the schema check of a store opened on %s', (kind) => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.drop();
    database = undefined;
  });

  it('refuses a database that a later mailplane migrated, with one migration more or one in place of its last', async () => {
    const last = (await knownMigrations(kind)).at(-1)!;
    for (const change of [
      `INSERT INTO kysely_migration (name, timestamp) VALUES ('9999-from-a-later-mailplane', '2030-01-01T00:00:00.000Z')`,
      `UPDATE kysely_migration SET name = '9999-from-a-later-mailplane' WHERE name = '${last}'`,
    ]) {
      database = await migratedDatabaseUrl(kind);
      await execSql(database.url, change);
      const opening = openKyselyStore({ url: database.url, maxConnections: 1 });
      await expect(opening, change).rejects.toThrow('mailplane migration (reading the migration table) failed');
      await expect(opening, change).rejects.toMatchObject({
        cause: { message: expect.stringContaining('9999-from-a-later-mailplane') },
      });
      await database.drop();
      database = undefined;
    }
  });

  it('migrates a database that the previous version left to every migration of this one', async () => {
    const known = await knownMigrations(kind);
    await withDatabaseAt(kind, known.at(-2)!, async (db, dialect) => {
      await migrateToLatest(db, dialect);
      const { rows } = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(db);
      expect(rows.map((row) => row.name)).toEqual(known);
    });
  });
});

async function knownMigrations(kind: StoreKind): Promise<string[]> {
  return Object.keys(await mailplaneMigrations(kind).getMigrations()).sort();
}
