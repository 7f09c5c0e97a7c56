import { resolve } from 'node:path';
import {
  DEFAULT_MIGRATION_TABLE,
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  sql,
  type MigrationProvider,
} from 'kysely';
import { consoleLogger, type Logger } from '../../../src/logging/logger.js';
import type { MailplaneStore } from '../../../src/store/index.js';
import { isUnavailableFault } from '../../../src/store/faults.js';
import { UnavailableError } from '../../../src/errors.js';
import type { DialectName } from './dialect.js';
import { mailplaneMigrations } from './migrations/index.js';
import { prepareSqliteFile, tightenSqliteSidecars } from './private-files.js';
import { cachingStatements } from './sqlite-statements.js';
import type { Database } from './schema.js';
import { kyselyStore } from './store.js';
import type { ListenClient } from './jobs-due.js';

/** Options of {@link openKyselyStore}. */
export interface OpenKyselyStoreOptions {
  /**
   * Where the data lives: `sqlite:./data/mailplane.db` (relative to the working directory),
   * `sqlite:/absolute/path.db`, `sqlite::memory:`, or a `postgres://` / `postgresql://` URL.
   */
  url: string;
  /** Largest number of PostgreSQL connections in the pool (default 10). */
  maxConnections?: number;
  /** Run pending migrations before returning (default true). */
  migrate?: boolean;
  /** Where warnings go (an SQLite data directory others can read); default: JSON lines on stderr. */
  logger?: Pick<Logger, 'warn'>;
}

/** Parses a database URL into its dialect and the driver's target. */
export function parseDatabaseUrl(url: string): { dialect: DialectName; target: string } {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') throw new Error(`the SQLite URL ${url} names no file`);
    return { dialect: 'sqlite', target: path === ':memory:' ? path : resolve(path) };
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return { dialect: 'postgres', target: url };
  throw new Error('the database URL must start with sqlite: or postgres://');
}

async function createKysely(
  dialect: DialectName,
  target: string,
  maxConnections: number,
  logger: Pick<Logger, 'warn'>,
): Promise<{ db: Kysely<Database>; listenClient?: () => ListenClient }> {
  if (dialect === 'sqlite') {
    const { default: SQLite } = await import('better-sqlite3');
    // The database holds keys (sealed), credentials and every recipient address: owner only, whatever the umask.
    if (target !== ':memory:') prepareSqliteFile(target, logger);
    const database = new SQLite(target);
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    // Checkpoint every 16,384 WAL pages (64 MB) instead of SQLite's 1,000: the pages every accept
    // rewrites (index tails, counters, jobs) are copied back once per checkpoint, not once per
    // 1,000 pages, which made a 100-recipient accept about 20 % cheaper here (docs/performance.md).
    // After a checkpoint the WAL file is cut back to that size.
    database.pragma('wal_autocheckpoint = 16384');
    database.pragma('journal_size_limit = 67108864');
    database.pragma('foreign_keys = ON');
    database.pragma('busy_timeout = 5000');
    // Nanosecond timestamps exceed 2^53: read every INTEGER as a bigint and convert in the mappers.
    database.defaultSafeIntegers(true);
    return { db: new Kysely<Database>({ dialect: new SqliteDialect({ database: cachingStatements(database) }) }) };
  }
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: target, max: maxConnections });
  // An idle client whose backend goes away (server restart, admin termination) emits 'error' on
  // the pool; unhandled, that would crash the host process. The pool drops the client and the
  // next query opens a new connection, so there is nothing else to do here.
  pool.on('error', () => {});
  // A client checked out of the pool (inside a transaction, between two statements) whose
  // connection drops emits 'error' on itself, where the pool no longer listens: without this the
  // host process would die. The statement in flight or the next one rejects, which the store
  // reports as UnavailableError, and the pool replaces the client.
  pool.on('connect', (client) => client.on('error', () => {}));
  // Outside the pool: a LISTEN holds its connection for good (see jobs-due.ts).
  return {
    db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }),
    listenClient: () => new pg.Client({ connectionString: target }),
  };
}

/** Applies every pending mailplane migration; throws with the failing migration's error. */
export async function migrateToLatest(db: Kysely<Database>, dialect: DialectName): Promise<void> {
  const provider = mailplaneMigrations(dialect);
  if (await hasEveryMigration(db, dialect, provider)) return;
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    // No migration ran: the migration table could not even be read, usually a database that cannot be reached.
    if (failed === undefined && isUnavailableFault(error)) throw unreachable(dialect, error);
    throw new Error(`mailplane migration ${failed ?? '(reading the migration table)'} failed`, { cause: error });
  }
}

/**
 * Whether the database has this code's migrations applied and no others, in one query. The
 * migrator's own check takes about ten (it reads the tables' definitions and takes its lock): 55 ms
 * against 2 on PostgreSQL here, paid by every process and every test that opens a store. Anything
 * else (a new database, a pending or an unknown migration) is left to the migrator.
 */
async function hasEveryMigration(
  db: Kysely<Database>,
  dialect: DialectName,
  provider: MigrationProvider,
): Promise<boolean> {
  const known = Object.keys(await provider.getMigrations());
  try {
    const { rows } = await sql<{ name: string }>`SELECT name FROM ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(db);
    const applied = new Set(rows.map((row) => row.name));
    return applied.size === known.length && known.every((name) => applied.has(name));
  } catch (error) {
    // A database that cannot be reached fails here as it would in the migrator, without waiting twice.
    if (isUnavailableFault(error)) throw unreachable(dialect, error);
    return false;
  }
}

function unreachable(dialect: DialectName, cause: unknown): UnavailableError {
  return new UnavailableError(
    `the ${dialect === 'postgres' ? 'PostgreSQL' : 'SQLite'} database cannot be reached`,
    cause,
  );
}

/**
 * Opens the storage named by a URL, migrates it to the latest schema, and returns the store.
 * SQLite is the embedded default (one file, WAL); PostgreSQL lets several mailplane processes
 * share one database.
 *
 * @example
 * const store = await openKyselyStore({ url: 'sqlite:./data/mailplane.db' });
 */
export async function openKyselyStore(options: OpenKyselyStoreOptions): Promise<MailplaneStore> {
  const { dialect, target } = parseDatabaseUrl(options.url);
  const logger = options.logger ?? consoleLogger;
  const { db, listenClient } = await createKysely(dialect, target, options.maxConnections ?? 10, logger);
  try {
    if (options.migrate !== false) await migrateToLatest(db, dialect);
    // The WAL and shared-memory files exist by now; SQLite gives them the database's mode, this makes sure.
    if (dialect === 'sqlite' && target !== ':memory:') tightenSqliteSidecars(target, logger);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return kyselyStore({ db, dialect, ...(listenClient && { listenClient }) });
}
