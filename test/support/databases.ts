/**
 * Real databases for tests: a fresh SQLite file per store, and, when MAILPLANE_TEST_PG_URL is set,
 * a fresh PostgreSQL database per store (created on that server, dropped on close). A store for a
 * test starts as a copy of a migrated template database.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { MailplaneStore } from 'mailplane';
import { openKyselyStore } from 'mailplane/storage/kysely';
import { copySqliteTemplate, databaseUrl, onServer, postgresTemplate, templateClause } from './template-databases.js';

/** The storage backends the suite runs on. */
export type StoreKind = 'sqlite' | 'postgres';

/** PostgreSQL server URL for tests, if any. */
export const pgUrl = process.env.MAILPLANE_TEST_PG_URL;

/** SQLite always; PostgreSQL when a test server is configured. */
export const storeKinds: StoreKind[] = pgUrl ? ['sqlite', 'postgres'] : ['sqlite'];

/** A new database and a function that removes it. */
export interface TestDatabase {
  url: string;
  drop: () => Promise<void>;
}

/** A database URL that points at a new, empty database, and a function that removes it. */
export async function freshDatabaseUrl(kind: StoreKind): Promise<TestDatabase> {
  return kind === 'sqlite' ? freshSqliteFile() : createPostgresDatabase();
}

/**
 * Like {@link freshDatabaseUrl}, but the new database already has the whole schema: a copy of a
 * template migrated once per schema (template-databases.ts), which is several times faster than
 * migrating each test's database.
 */
export async function migratedDatabaseUrl(kind: StoreKind): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    const database = freshSqliteFile();
    await copySqliteTemplate(database.url.slice('sqlite:'.length));
    return database;
  }
  return createPostgresDatabase(await postgresTemplate(requirePgUrl()));
}

/** A migrated store on a fresh database; `close` closes it and drops the database. */
export async function openTestStore(
  kind: StoreKind,
): Promise<{ store: MailplaneStore; url: string; close: () => Promise<void> }> {
  const { url, drop } = await migratedDatabaseUrl(kind);
  // Migrating finds every migration applied (the template has them): a check, not a migration.
  const store = await openKyselyStore({ url, maxConnections: 5 });
  return {
    store,
    url,
    close: async () => {
      // A test may have closed the store itself (mailplane.close() closes it): closing twice is fine here.
      await store.close().catch(() => {});
      await drop();
    },
  };
}

function freshSqliteFile(): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'mailplane-test-'));
  return {
    url: `sqlite:${join(dir, 'mailplane.db')}`,
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

function requirePgUrl(): string {
  if (!pgUrl) throw new Error('MAILPLANE_TEST_PG_URL is not set');
  return pgUrl;
}

/** A new PostgreSQL database on the test server, empty or a copy of `template`. */
async function createPostgresDatabase(template?: string): Promise<TestDatabase> {
  const serverUrl = requirePgUrl();
  const name = `mailplane_test_${randomBytes(6).toString('hex')}`;
  await onServer(serverUrl, async (admin) =>
    admin.query(`CREATE DATABASE ${name} ${template ? await templateClause(admin, template) : ''}`),
  );
  return {
    url: databaseUrl(serverUrl, name),
    drop: async () => {
      await onServer(serverUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/**
 * Runs `sql` on the database at `url` over a connection of its own, as another process would (to
 * break a table under a running store, say).
 */
export async function execSql(url: string, sql: string): Promise<void> {
  if (url.startsWith('sqlite:')) {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(url.slice('sqlite:'.length));
    try {
      db.exec(sql);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
