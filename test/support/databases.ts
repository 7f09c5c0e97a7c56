/**
 * Real databases for tests: a fresh SQLite file per store, and, when MAILPLANE_TEST_PG_URL is set,
 * a fresh PostgreSQL database per store (created from that server, dropped on close).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { MailplaneStore } from 'mailplane';
import { openKyselyStore } from 'mailplane/storage/kysely';

/** The storage backends the suite runs on. */
export type StoreKind = 'sqlite' | 'postgres';

/** PostgreSQL server URL for tests, if any. */
export const pgUrl = process.env.MAILPLANE_TEST_PG_URL;

/** SQLite always; PostgreSQL when a test server is configured. */
export const storeKinds: StoreKind[] = pgUrl ? ['sqlite', 'postgres'] : ['sqlite'];

/** A database URL that points at a new, empty database, and a function that removes it. */
export async function freshDatabaseUrl(kind: StoreKind): Promise<{ url: string; drop: () => Promise<void> }> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'mailplane-test-'));
    return {
      url: `sqlite:${join(dir, 'mailplane.db')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (!pgUrl) throw new Error('MAILPLANE_TEST_PG_URL is not set');
  const name = `mailplane_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const dropper = new pg.Client({ connectionString: pgUrl });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}

/** A migrated store on a fresh database; `close` closes it and drops the database. */
export async function openTestStore(
  kind: StoreKind,
): Promise<{ store: MailplaneStore; url: string; close: () => Promise<void> }> {
  const { url, drop } = await freshDatabaseUrl(kind);
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
