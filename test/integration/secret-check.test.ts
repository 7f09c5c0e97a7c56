/**
 * A node started with another secret than the one its database was set up with is refused: the
 * database keeps a check value (never the secret), written by the first node, compared by the next.
 * Real SQLite files and a real PostgreSQL; the in-memory store too.
 */
import Database from 'better-sqlite3';
import { contextOf } from '../../src/instance-context.js';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createMailplane,
  SECRET_CHECK_SETTING,
  SecretMismatchError,
  silentLogger,
  type Mailplane,
  type MailplaneStore,
} from 'mailplane';
import { openKyselyStore } from 'mailplane/storage/kysely';
import { createMemoryStore } from 'mailplane/testing';
import { TEST_SECRET } from '../support/api.js';
import { freshDatabaseUrl, storeKinds } from '../support/databases.js';

const OTHER_SECRET = 'another-secret-another-secret-another-secret';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function instance(store: MailplaneStore, secret: string): Mailplane {
  const mailplane = createMailplane({ store, secret, logger: silentLogger });
  cleanups.push(() => mailplane.close().catch(() => {}));
  return mailplane;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('the call succeeded'),
    (error: unknown) => error,
  );
}

describe.each(storeKinds)('the secret check on %s', (kind) => {
  it('lets a node with the same secret in and refuses one with another, before any work', async () => {
    const { url, drop } = await freshDatabaseUrl(kind);
    cleanups.push(drop);
    const first = instance(await openKyselyStore({ url }), TEST_SECRET);
    const { generatedApiKey } = await first.ensureAccount();
    expect(generatedApiKey).toBeDefined();

    const same = instance(await openKyselyStore({ url }), TEST_SECRET);
    expect((await same.ensureAccount()).generatedApiKey).toBeUndefined();
    await same.start();

    const other = instance(await openKyselyStore({ url }), OTHER_SECRET);
    const refused = await rejection(other.ensureAccount());
    expect(refused).toBeInstanceOf(SecretMismatchError);
    expect(refused).toMatchObject({
      code: 'SECRET_MISMATCH',
      message: expect.stringMatching(/^this database was set up with another secret/),
    });
    expect(await rejection(other.start())).toBeInstanceOf(SecretMismatchError);
    expect(await rejection(other.createAccount({ name: 'Second' }))).toBeInstanceOf(SecretMismatchError);
    const ready = await other.readiness();
    expect(ready).toMatchObject({
      ready: false,
      checks: { store: 'ok', jobRunner: 'off' },
      reason: expect.stringMatching(/^secret: this database was set up with another secret/),
    });
  });

  it('stores a check value, not the secret, and writes it into a database set up before checks existed', async () => {
    const { url, drop } = await freshDatabaseUrl(kind);
    cleanups.push(drop);
    const store = await openKyselyStore({ url });
    const first = instance(store, TEST_SECRET);
    await first.ensureAccount();
    const stored = await store.settings!.claim(SECRET_CHECK_SETTING, 'ignored: a value is there');
    expect(stored).toMatch(/^v1\.[A-Za-z0-9_-]{43}$/);
    expect(stored).not.toContain(TEST_SECRET);
    expect(stored).toBe(contextOf(first).secrets.checkValue);
    await first.close();

    // A database set up before check values existed: its account is there, its settings table empty.
    await deleteSettings(kind, url);
    const upgraded = instance(await openKyselyStore({ url }), TEST_SECRET);
    expect((await upgraded.ensureAccount()).generatedApiKey).toBeUndefined();
    const other = instance(await openKyselyStore({ url }), OTHER_SECRET);
    expect(await rejection(other.ensureAccount())).toBeInstanceOf(SecretMismatchError);
  });
});

/** Empties the settings table behind the store's back, with the driver itself. */
async function deleteSettings(kind: 'sqlite' | 'postgres', url: string): Promise<void> {
  if (kind === 'sqlite') {
    const db = new Database(url.slice('sqlite:'.length));
    db.prepare('DELETE FROM settings').run();
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('DELETE FROM settings');
  await client.end();
}

describe('the secret check on the in-memory store', () => {
  it('refuses another secret on the same store', async () => {
    const store = createMemoryStore();
    await instance(store, TEST_SECRET).ensureAccount();
    expect(await rejection(instance(store, OTHER_SECRET).ensureAccount())).toBeInstanceOf(SecretMismatchError);
  });
});
