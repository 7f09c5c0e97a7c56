/**
 * A database as an earlier version of mailplane left it: fresh, migrated up to one named migration,
 * for tests of the migrations after it (they write rows the old way, then migrate to the latest).
 */
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { mailplaneMigrations, parseDatabaseUrl, type Database } from '../../adapters/storage/kysely/index.js';
import { freshDatabaseUrl, type StoreKind } from './databases.js';

/** The dialect of a database URL. */
export type DialectName = ReturnType<typeof parseDatabaseUrl>['dialect'];

/**
 * Runs `work` on a fresh `kind` database migrated up to `migration` (a name such as
 * `0015-activity`), then closes and drops it. SQLite runs with foreign keys on, as the store opens it.
 */
export async function withDatabaseAt(
  kind: StoreKind,
  migration: string,
  work: (db: Kysely<Database>, dialect: DialectName) => Promise<void>,
): Promise<void> {
  const { url, drop } = await freshDatabaseUrl(kind);
  const { dialect, target } = parseDatabaseUrl(url);
  const sqlite = dialect === 'sqlite' ? new SQLite(target) : null;
  sqlite?.pragma('foreign_keys = ON');
  const pool = sqlite ? null : new pg.Pool({ connectionString: target });
  // The drop below ends the database's sessions (WITH FORCE): a connection still closing then reports
  // "terminating connection due to administrator command", which is no failure of the test.
  pool?.on('error', () => undefined);
  const db = new Kysely<Database>({
    dialect: sqlite ? new SqliteDialect({ database: sqlite }) : new PostgresDialect({ pool: pool! }),
  });
  try {
    const { error } = await new Migrator({ db, provider: mailplaneMigrations(dialect) }).migrateTo(migration);
    if (error) throw error;
    await work(db, dialect);
  } finally {
    await db.destroy();
    await drop();
  }
}

/** The webhook switch columns of every schema from 0015 to 0031 (0032 added `incident`). */
const SWITCHES_BEFORE_0032 = [
  'processed',
  'delivered',
  'dropped',
  'soft_bounced',
  'hard_bounced',
  'opened',
  'clicked',
  'unsubscribed',
  'spam',
  'sent',
  'smtp_dropped',
  'unique_open',
  'unique_click',
];

/**
 * Inserts a webhook of `accountId` as a version before migration 0032 wrote it (every switch on,
 * secret `sealed`, created at 5 ns), answering its id: the store of today writes columns an older
 * schema lacks.
 */
export async function insertWebhookBefore0032(db: Kysely<Database>, accountId: number, url: string): Promise<number> {
  const values: Record<string, unknown> = {
    account_id: accountId,
    url,
    url_key: url.toLowerCase(),
    enabled: 1,
    secret_sealed: 'sealed',
    created: 5n,
    updated: 5n,
    ...Object.fromEntries(SWITCHES_BEFORE_0032.map((column) => [column, 1])),
  };
  const row = await db
    .insertInto('webhooks')
    .values(values as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}
