/**
 * A database that cannot write (read-only, full) on real SQLite and PostgreSQL: reads keep
 * answering 200 (the rate-limit counter fails open, with one warning a window, not one a request),
 * writes answer `503 SERVICE_UNAVAILABLE` with `Retry-After`, nothing answers 500, and everything
 * works again once the condition ends.
 *
 * SQLite is made read-only with `PRAGMA query_only` and full with `PRAGMA max_page_count` on the
 * store's own connection (both are what SQLite itself answers for a read-only file and a full disk:
 * `SQLITE_READONLY`, `SQLITE_FULL`); PostgreSQL with `default_transaction_read_only` on the test's
 * database and its sessions ended, as a primary demoted to a standby does (`25006` on every write).
 */
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Logger, MailplaneStore } from 'mailplane';
import { kyselyStore, openKyselyStore, type Database as Schema } from 'mailplane/storage/kysely';
import { cachingStatements } from '../../adapters/storage/kysely/sqlite-statements.js';
import { createTestApi, type CallResult, type TestApi } from '../support/api.js';
import { freshDatabaseUrl, pgUrl, storeKinds, type StoreKind } from '../support/databases.js';
import { createSender, sendBody } from '../support/sending.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A migrated store on a fresh database, and the real switch that stops and restarts its writes. */
interface SwitchableStore {
  store: MailplaneStore;
  readOnly(on: boolean): Promise<void>;
  /** SQLite only: its connection, for `max_page_count`. */
  sqlite?: Database.Database;
}

/** SQLite: the store on a connection of the test's own, opened as the Kysely adapter opens its own. */
async function sqliteSwitchable(): Promise<SwitchableStore> {
  const { url, drop } = await freshDatabaseUrl('sqlite');
  cleanups.push(drop);
  await (await openKyselyStore({ url })).close();
  const connection = new Database(url.slice('sqlite:'.length));
  connection.pragma('journal_mode = WAL');
  connection.pragma('foreign_keys = ON');
  connection.pragma('busy_timeout = 5000');
  connection.defaultSafeIntegers(true);
  const store = kyselyStore({
    db: new Kysely<Schema>({ dialect: new SqliteDialect({ database: cachingStatements(connection) }) }),
    dialect: 'sqlite',
  });
  cleanups.push(() => store.close().catch(() => {}));
  return {
    store,
    sqlite: connection,
    readOnly: async (on) => void connection.pragma(`query_only = ${on ? 'ON' : 'OFF'}`),
  };
}

/** PostgreSQL: the database's default turned read-only, and its sessions ended so the pool reconnects under it. */
async function postgresSwitchable(): Promise<SwitchableStore> {
  const { url, drop } = await freshDatabaseUrl('postgres');
  cleanups.push(drop);
  const store = await openKyselyStore({ url, maxConnections: 3 });
  cleanups.push(() => store.close().catch(() => {}));
  const name = new URL(url).pathname.slice(1);
  const readOnly = async (on: boolean) => {
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    try {
      await admin.query(`ALTER DATABASE ${name} SET default_transaction_read_only = ${on ? 'on' : 'off'}`);
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name],
      );
    } finally {
      await admin.end();
    }
    // The pool drops the ended sessions; wait until a read runs on a new one.
    await vi.waitFor(() => store.accounts.first(), { timeout: 10_000, interval: 50 });
  };
  return { store, readOnly };
}

const switchable = (kind: StoreKind) => (kind === 'sqlite' ? sqliteSwitchable() : postgresSwitchable());

/** An instance on `store` whose logged and notices are kept. */
async function apiOn(
  kind: StoreKind,
  store: MailplaneStore,
): Promise<{ api: TestApi; logged: Array<{ message: string; fields?: Record<string, unknown> }> }> {
  const logged: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  const logger: Logger = {
    info: (message, fields) => void logged.push({ message, fields }),
    error: () => {},
    warn: (message, fields) => void logged.push({ message, fields }),
  };
  const api = await createTestApi(kind, { store, logger });
  cleanups.push(
    () => api.close(),
    () => api.mailplane.close(),
  );
  return { api, logged };
}

/** A 503 as a client should get it: a retry time and a stable code in a JSON body. */
function expectUnavailable(answer: CallResult): void {
  expect(answer.status, answer.text).toBe(503);
  expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(answer.body).toEqual({ code: 'SERVICE_UNAVAILABLE', message: expect.any(String) });
}

describe.each(storeKinds)('a %s database that cannot write', (kind) => {
  it('answers reads 200 (the rate limit fails open, warned once), writes 503 with Retry-After, and recovers', async () => {
    const { store, readOnly } = await switchable(kind);
    const { api, logged } = await apiOn(kind, store);
    const sender = await createSender(api, 'Readers', 'unwritable.test');
    const sub = sender.subAccount.apiKey;
    const sent = await api.call('POST', '/subaccount/email', {
      sub,
      body: sendBody('news@unwritable.test', ['ann@example.org']),
    });
    expect(sent.status, sent.text).toBe(200);
    const messageId = sent.body[0].messageId as string;

    await readOnly(true);
    const reads: CallResult[] = [];
    for (let i = 0; i < 5; i++) {
      reads.push(await api.call('GET', '/account/subaccount', { account: api.accountKey }));
      reads.push(await api.call('GET', `/subaccount/message/${messageId}`, { sub }));
      reads.push(await api.call('GET', '/subaccount/domain', { sub }));
    }
    for (const read of reads) expect(read.status, read.text).toBe(200);
    expect(reads[0]!.body.map((s: { name: string }) => s.name)).toContain('Readers');
    const uncounted = logged.filter((w) => /rate limits are not counted/.test(w.message));
    expect(uncounted, JSON.stringify(logged)).toHaveLength(1);

    const refusedSend = await api.call('POST', '/subaccount/email', {
      sub,
      body: sendBody('news@unwritable.test', ['bob@example.org']),
    });
    expectUnavailable(refusedSend);
    expectUnavailable(
      await api.call('POST', '/account/subaccount', { account: api.accountKey, body: { name: 'Later' } }),
    );

    await readOnly(false);
    const again = await api.call('POST', '/subaccount/email', {
      sub,
      body: sendBody('news@unwritable.test', ['bob@example.org']),
    });
    expect(again.status, again.text).toBe(200);
    const counted = await api.call('GET', '/account/subaccount', { account: api.accountKey });
    expect(counted.status).toBe(200);
    expect(counted.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
    expect(logged.filter((w) => w.message === 'rate limits are counted again')).toHaveLength(1);
  }, 60_000);
});

describe('a full SQLite database', () => {
  it('answers a send that needs new pages 503 with Retry-After, keeps reads at 200, and recovers when space is freed', async () => {
    const { store, sqlite } = await sqliteSwitchable();
    const { api } = await apiOn('sqlite', store);
    const sender = await createSender(api, 'Full', 'full.test');
    const sub = sender.subAccount.apiKey;
    // No page beyond the current ones, and the free ones filled: the file cannot grow, as on a full disk.
    sqlite!.exec('CREATE TABLE filler (b BLOB)');
    sqlite!.pragma(`max_page_count = ${sqlite!.pragma('page_count', { simple: true }) as bigint}`);
    const fill = sqlite!.prepare('INSERT INTO filler VALUES (zeroblob(512))');
    expect(() => {
      for (;;) fill.run();
    }).toThrow(expect.objectContaining({ code: 'SQLITE_FULL' }));

    const large = sendBody('news@full.test', ['ann@example.org'], { htmlBody: `<p>${'x'.repeat(64 * 1024)}</p>` });
    expectUnavailable(await api.call('POST', '/subaccount/email', { sub, body: large }));
    const read = await api.call('GET', '/subaccount/domain', { sub });
    expect(read.status, read.text).toBe(200);

    sqlite!.exec('DROP TABLE filler');
    sqlite!.pragma('max_page_count = 1073741823');
    const sent = await api.call('POST', '/subaccount/email', { sub, body: large });
    expect(sent.status, sent.text).toBe(200);
  }, 60_000);
});
