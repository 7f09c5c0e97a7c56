/**
 * Template databases for the tests (issue 26, item 7): the schema is migrated once, and each test's
 * database starts as a copy of it. Migrating a fresh database takes about 25 ms on SQLite and 120 ms
 * on PostgreSQL, and the suite opens thousands; a copy takes a fraction of that.
 *
 * A template is named by a hash of the storage adapter's sources, so a changed migration gets a new
 * template, never a stale one. Templates are shared by the test processes of a run: the SQLite one
 * is a file in the temporary directory (built under a name of its own, then renamed into place);
 * the PostgreSQL one is a database built under an advisory lock, then renamed into place.
 */
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openKyselyStore } from 'mailplane/storage/kysely';

/** The storage adapter whose sources (migrations, table definitions) make the schema. */
const ADAPTER_DIR = fileURLToPath(new URL('../../adapters/storage/kysely/', import.meta.url));

/** The SQLite templates' file names in the temporary directory: this, the schema's hash, `.db`. */
const SQLITE_TEMPLATE_PREFIX = 'mailplane-template-';

/** Any constant: the advisory lock under which one process builds the PostgreSQL template. */
const TEMPLATE_LOCK = 74_101_226;

/**
 * What this process has built or found, so that each is done once per process. Test support, not
 * library code: a per-process memo of a one-time computation.
 */
const memo: {
  hash?: string;
  sqlite?: string;
  postgres: Map<string, Promise<string>>;
  fileCopy?: boolean;
  adminPools: Map<string, pg.Pool>;
} = {
  postgres: new Map(),
  adminPools: new Map(),
};

/** Copies the migrated SQLite template to `path` (a file that does not exist yet). */
export async function copySqliteTemplate(path: string): Promise<void> {
  memo.sqlite ??= await sqliteTemplate();
  copyFileSync(memo.sqlite, path);
}

/** The name of the migrated PostgreSQL template database on the server at `serverUrl`. */
export function postgresTemplate(serverUrl: string): Promise<string> {
  let template = memo.postgres.get(serverUrl);
  if (!template) {
    template = buildPostgresTemplate(serverUrl);
    // A failed build is tried again by the next caller rather than failing every later test.
    template.catch(() => memo.postgres.delete(serverUrl));
    memo.postgres.set(serverUrl, template);
  }
  return template;
}

/**
 * The clause that makes a copy of `template` on the server of `admin`. From PostgreSQL 15 on, a copy
 * by default writes every page of the template into the write-ahead log (`STRATEGY WAL_LOG`); for a
 * template this small, copying its files is faster. Measured on a 2-core machine with PostgreSQL 15,
 * its data in memory and the suite running: 60-100 ms a copy against 95-150 ms, and the suite makes
 * over a thousand. (With the data on that machine's disk, either took about 500 ms.)
 */
export async function templateClause(admin: pg.ClientBase, template: string): Promise<string> {
  if (memo.fileCopy === undefined) {
    const { rows } = await admin.query<{ server_version_num: string }>('SHOW server_version_num');
    memo.fileCopy = Number(rows[0]?.server_version_num) >= 150_000;
  }
  return `TEMPLATE ${template}${memo.fileCopy ? ' STRATEGY FILE_COPY' : ''}`;
}

/**
 * Runs `work` on a connection to the server's administrative database. The connections are kept by
 * the process between calls (a PostgreSQL connection took about 20 ms here, as long as copying the
 * template, and each test makes and drops a database), and closed after a second unused, so that
 * they never hold a test process open.
 */
export async function onServer<T>(serverUrl: string, work: (admin: pg.PoolClient) => Promise<T>): Promise<T> {
  let pool = memo.adminPools.get(serverUrl);
  if (!pool) {
    pool = new pg.Pool({ connectionString: serverUrl, max: 2, idleTimeoutMillis: 1_000, allowExitOnIdle: true });
    // A connection the server ends while idle (a test that restarts it) is dropped, not thrown.
    pool.on('error', () => {});
    memo.adminPools.set(serverUrl, pool);
  }
  const admin = await pool.connect();
  let broken: Error | undefined;
  try {
    return await work(admin);
  } catch (error) {
    broken = error as Error;
    throw error;
  } finally {
    // A connection whose work failed is closed rather than reused (it may hold a lock or be broken).
    admin.release(broken);
  }
}

/** The URL of database `name` on the server at `serverUrl`. */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** How old a template of another schema must be before a run removes it. */
const STALE_TEMPLATE_MS = 3_600_000;

async function sqliteTemplate(): Promise<string> {
  const current = `${SQLITE_TEMPLATE_PREFIX}${schemaHash()}.db`;
  const path = join(tmpdir(), current);
  if (existsSync(path)) return path;
  // Templates of earlier schemas (a developer's machine keeps them between runs); never one of
  // this schema that another process is building, nor a recent one that a run on another working
  // copy of the schema (a branch being edited) may be copying now.
  for (const file of readdirSync(tmpdir())) {
    if (!file.startsWith(SQLITE_TEMPLATE_PREFIX) || file.startsWith(current)) continue;
    const stale = join(tmpdir(), file);
    if (Date.now() - (statSync(stale, { throwIfNoEntry: false })?.mtimeMs ?? 0) > STALE_TEMPLATE_MS)
      rmSync(stale, { force: true });
  }
  const building = `${path}.${randomBytes(6).toString('hex')}`;
  const store = await openKyselyStore({ url: `sqlite:${building}`, maxConnections: 1 });
  // Closing the only connection checkpoints the write-ahead log into the file and removes it.
  await store.close();
  if (existsSync(`${building}-wal`)) throw new Error(`the SQLite template ${building} kept its write-ahead log`);
  rmSync(`${building}-shm`, { force: true });
  // Atomic: a process that lost the race to build it replaces the file with an identical one.
  renameSync(building, path);
  return path;
}

async function buildPostgresTemplate(serverUrl: string): Promise<string> {
  const name = `mailplane_template_${schemaHash().slice(0, 16)}`;
  await onServer(serverUrl, async (admin) => {
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    try {
      const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (found.rowCount) return;
      const building = `${name}_${randomBytes(4).toString('hex')}`;
      await admin.query(`CREATE DATABASE ${building}`);
      const store = await openKyselyStore({ url: databaseUrl(serverUrl, building), maxConnections: 1 });
      await store.close();
      // A closed connection's server process may linger a moment; a copy needs the template unused.
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [building]);
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      await admin.query(`COMMENT ON DATABASE ${name} IS '${Date.now()}'`);
      await dropOtherTemplates(admin, name);
    } finally {
      await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    }
  });
  return name;
}

/**
 * Templates of earlier schemas (a developer's server keeps them between runs) are not needed again,
 * once they are an hour old (their comment holds when they were built): a run on another working copy
 * of the schema may be copying a recent one now.
 */
async function dropOtherTemplates(admin: pg.ClientBase, current: string): Promise<void> {
  const { rows } = await admin.query<{ datname: string; built: string | null }>(
    "SELECT datname, shobj_description(oid, 'pg_database') AS built FROM pg_database WHERE datname LIKE 'mailplane\\_template\\_%' AND datname <> $1",
    [current],
  );
  for (const { datname, built } of rows) {
    if (Date.now() - Number(built ?? 0) < STALE_TEMPLATE_MS) continue;
    await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  }
}

/** A hash of the storage adapter's sources: the schema's version, as far as the tests can tell. */
function schemaHash(): string {
  if (memo.hash) return memo.hash;
  const hash = createHash('sha256');
  for (const file of sourcesUnder(ADAPTER_DIR)) hash.update(file).update(readFileSync(join(ADAPTER_DIR, file)));
  memo.hash = hash.digest('hex');
  return memo.hash;
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .sort();
}
