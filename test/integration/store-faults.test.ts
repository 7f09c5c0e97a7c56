/**
 * Driver faults reach mailplane as the storage contract says: `StorageError` or, when the database
 * cannot be reached, `UnavailableError`, each with the driver's error as `cause`; the API answers
 * the latter `503 SERVICE_UNAVAILABLE` and the SMTP relay `451 4.3.0`. Real SQLite files and a real
 * PostgreSQL server (reached through a loopback forwarder the test cuts, or a closed port).
 */
import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createMailplane,
  createSmtpRelay,
  silentLogger,
  StorageError,
  UnavailableError,
  withStorageFaults,
  type MailplaneStore,
} from 'mailplane';
import { kyselyStore, openKyselyStore, type Database as Schema } from 'mailplane/storage/kysely';
import { newAccount, sampleSubAccount } from 'mailplane/testing';
import { createTestApi, TEST_SECRET } from '../support/api.js';
import { freshDatabaseUrl, openTestStore, pgUrl } from '../support/databases.js';
import { rawSmtp } from '../support/raw-smtp.js';
import { closedPort, startTcpProxy } from '../support/tcp-proxy.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A migrated SQLite store, wrapped, and the path of its file. */
async function sqliteStore(): Promise<{ store: MailplaneStore; raw: MailplaneStore; file: string }> {
  const { store, url, close } = await openTestStore('sqlite');
  cleanups.push(close);
  return { store: withStorageFaults(store), raw: store, file: url.slice('sqlite:'.length) };
}

/** What `promise` rejects with. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('the call succeeded'),
    (error: unknown) => error,
  );
}

describe('withStorageFaults on SQLite', () => {
  it('keeps null and Outcome answers, and turns a driver fault into a StorageError with the driver error as cause', async () => {
    const { store, file } = await sqliteStore();
    const account = await newAccount(store);
    expect(await store.accounts.get(account.id + 1000)).toBeNull();
    expect((await store.subAccounts.create(sampleSubAccount(account.id, 'Hooli'))).ok).toBe(true);
    expect(await store.subAccounts.create(sampleSubAccount(account.id, 'HOOLI'))).toEqual({
      ok: false,
      reason: 'duplicate-name',
    });

    // Another process breaks the schema under the running store.
    const other = new Database(file);
    other.exec('DROP TABLE suppressions');
    other.close();
    const error = await rejection(store.suppressions.find(1, 'a@b.test'));
    expect(error).toBeInstanceOf(StorageError);
    expect(error).toMatchObject({ kind: 'storage', code: 'STORAGE_ERROR', cause: { code: 'SQLITE_ERROR' } });
    expect((error as Error).message).toMatch(/suppressions\.find.*no such table: suppressions/);
  });

  it('answers a file that is no database with StorageError', async () => {
    const { url, drop } = await freshDatabaseUrl('sqlite');
    cleanups.push(drop);
    const file = url.slice('sqlite:'.length);
    writeFileSync(file, Buffer.alloc(8192, 'not a database '));
    const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: new Database(file) }) });
    const store = withStorageFaults(kyselyStore({ db, dialect: 'sqlite' }));
    cleanups.push(() => store.close());
    const error = await rejection(store.accounts.first());
    expect(error).toBeInstanceOf(StorageError);
    expect(error).toMatchObject({ cause: { code: 'SQLITE_NOTADB' } });
  });

  it('answers a database locked by another connection beyond the busy timeout with UnavailableError', async () => {
    const { raw, file } = await sqliteStore();
    await raw.close();
    const connection = new Database(file);
    connection.pragma('journal_mode = WAL');
    connection.pragma('busy_timeout = 50');
    connection.defaultSafeIntegers(true);
    const store = withStorageFaults(
      kyselyStore({
        db: new Kysely<Schema>({ dialect: new SqliteDialect({ database: connection }) }),
        dialect: 'sqlite',
      }),
    );
    cleanups.push(() => store.close());
    const locker = new Database(file);
    locker.exec('BEGIN IMMEDIATE');
    cleanups.push(async () => (locker.exec('ROLLBACK'), locker.close()));
    const error = await rejection(newAccount(store));
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error).toMatchObject({
      kind: 'unavailable',
      code: 'SERVICE_UNAVAILABLE',
      cause: { code: expect.stringMatching(/^SQLITE_BUSY/) },
    });
  });

  it('answers a closed store with UnavailableError', async () => {
    const { store, raw } = await sqliteStore();
    await raw.close();
    const error = await rejection(store.accounts.first());
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it('hands the work of a transaction a wrapped store, lets its own errors through and commits its writes', async () => {
    const { store, file } = await sqliteStore();
    const account = await newAccount(store);
    const own = new Error('the work gave up');
    expect(await rejection(store.transaction(async () => Promise.reject(own)))).toBe(own);
    await store.transaction(async (tx) => {
      expect(withStorageFaults(tx)).toBe(tx);
      expect((await tx.subAccounts.create(sampleSubAccount(account.id, 'Kept'))).ok).toBe(true);
    });
    expect((await store.subAccounts.list(account.id, { limit: 10, offset: 0 })).map((s) => s.name)).toContain('Kept');

    const other = new Database(file);
    other.exec('DROP TABLE suppressions');
    other.close();
    const error = await rejection(store.transaction((tx) => tx.suppressions.find(1, 'a@b.test')));
    expect(error).toBeInstanceOf(StorageError);
  });

  it('wraps once: a wrapped store, and a decorator built on one by prototype, are returned as they are', async () => {
    const { store } = await sqliteStore();
    expect(withStorageFaults(store)).toBe(store);
    const decorated = Object.create(store) as MailplaneStore;
    expect(withStorageFaults(decorated)).toBe(decorated);
    // Calls through the decorator reach the wrapped store.
    const account = await newAccount(decorated);
    expect(await decorated.accounts.get(account.id)).toEqual(account);
  });
});

describe.skipIf(!pgUrl)('withStorageFaults on PostgreSQL', () => {
  it('answers a store pointed at a closed port with UnavailableError, and the API with 503 SERVICE_UNAVAILABLE', async () => {
    const raw = await openKyselyStore({
      url: `postgres://postgres@127.0.0.1:${await closedPort()}/mailplane`,
      migrate: false,
    });
    const error = await rejection(withStorageFaults(raw).accounts.first());
    expect(error).toBeInstanceOf(UnavailableError);
    expect(JSON.stringify((error as Error).cause, Object.getOwnPropertyNames((error as Error).cause))).toContain(
      'ECONNREFUSED',
    );

    const mailplane = createMailplane({ store: raw, secret: TEST_SECRET, logger: silentLogger });
    cleanups.push(() => mailplane.close());
    const response = await mailplane.handle({
      method: 'GET',
      path: '/account/subaccount',
      headers: { 'x-account-apikey': 'x'.repeat(40) },
      query: new URLSearchParams(),
    });
    expect(response.status).toBe(503);
    expect(JSON.parse(response.body)).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      message: 'a service mailplane depends on is unavailable; try again later',
    });
  });

  it('answers 503 over HTTP and 451 4.3.0 over SMTP once the database goes away mid-session', async () => {
    const { url, drop } = await freshDatabaseUrl('postgres');
    cleanups.push(drop);
    const target = new URL(url);
    const proxy = await startTcpProxy(Number(target.port || 5432), target.hostname);
    cleanups.push(() => proxy.cut());
    target.host = `127.0.0.1:${proxy.port}`;
    const store = await openKyselyStore({ url: target.toString(), maxConnections: 2 });
    const api = await createTestApi('sqlite', { store });
    cleanups.push(
      () => api.close(),
      () => api.mailplane.close(),
    );
    const created = await api.call('POST', '/account/subaccount', { account: api.accountKey, body: { name: 'relay' } });
    expect(created.status).toBe(201);
    const { username, password } = created.body.smtpAuths[0] as { username: string; password: string };

    const relay = createSmtpRelay(api.mailplane);
    cleanups.push(() => relay.close());
    const smtp = await rawSmtp((await relay.listen(0, '127.0.0.1')).port);
    cleanups.push(async () => smtp.close());
    await smtp.command('EHLO client.test');
    expect(await smtp.command(`AUTH PLAIN ${Buffer.from(`\0${username}\0${password}`).toString('base64')}`)).toMatch(
      /^235 /,
    );
    expect(await smtp.command('MAIL FROM:<news@example.test>')).toMatch(/^250 /);
    expect(await smtp.command('RCPT TO:<ann@example.test>')).toMatch(/^250 /);

    await proxy.cut();
    expect(await smtp.command('DATA')).toMatch(/^354 /);
    expect(await smtp.command('From: news@example.test\r\nTo: ann@example.test\r\nSubject: hi\r\n\r\nhello\r\n.')).toBe(
      '451 4.3.0 Temporary failure, try again later',
    );
    const refused = await api.call('GET', '/account/subaccount', { account: api.accountKey });
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('SERVICE_UNAVAILABLE');
  });
});
