/**
 * What a real start leaves on disk: the SQLite database, its WAL and shared-memory files and the
 * generated secret readable by the owner only (0600, in a 0700 directory), whatever the umask; a
 * data directory that existed with looser modes is reported, not changed, and mailplane's own
 * files in it are tightened.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openKyselyStore } from '../../adapters/storage/kysely/index.js';
import { startExample } from '../support/example-server.js';

const modeOf = (path: string) => `0${(statSync(path).mode & 0o777).toString(8)}`;

/** Creates a sub-account, so the database has written through its WAL. */
async function write(baseUrl: string, accountKey: string): Promise<void> {
  const response = await fetch(`${baseUrl}/account/subaccount`, {
    method: 'POST',
    headers: { 'x-account-apikey': accountKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Files' }),
  });
  expect(response.status).toBe(201);
}

describe('the data files of the express example', () => {
  it('are the owner’s only under umask 000: directory 0700, database, WAL, shared memory and secret 0600', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'mailplane-files-'));
    const dataDir = join(parent, 'nested', 'data');
    const server = await startExample(
      'express',
      { MAILPLANE_DATA_DIR: dataDir, MAILPLANE_DATABASE_URL: `sqlite:${join(dataDir, 'mailplane.db')}` },
      { umask: '000' },
    );
    try {
      await write(server.baseUrl, server.accountKey);
      expect(modeOf(join(parent, 'nested'))).toBe('0700');
      expect(modeOf(dataDir)).toBe('0700');
      for (const file of ['mailplane.db', 'mailplane.db-wal', 'mailplane.db-shm', 'secret']) {
        expect(existsSync(join(dataDir, file)), file).toBe(true);
        expect(modeOf(join(dataDir, file)), file).toBe('0600');
      }
      expect(server.output()).not.toContain('readable by other users');
    } finally {
      await server.stop();
      rmSync(parent, { recursive: true, force: true });
    }
  }, 60_000);

  it('warns about an existing directory others can read, leaves it, and tightens mailplane’s files in it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mailplane-files-'));
    chmodSync(dataDir, 0o755);
    // left by an earlier version: world-readable secret and database
    writeFileSync(join(dataDir, 'secret'), 'an-earlier-secret-an-earlier-secret-00\n', { mode: 0o644 });
    const earlier = await openKyselyStore({
      url: `sqlite:${join(dataDir, 'mailplane.db')}`,
      logger: { warn: () => undefined },
    });
    await earlier.close();
    chmodSync(join(dataDir, 'secret'), 0o644);
    chmodSync(join(dataDir, 'mailplane.db'), 0o644);
    const server = await startExample('express', {
      MAILPLANE_DATA_DIR: dataDir,
      MAILPLANE_DATABASE_URL: `sqlite:${join(dataDir, 'mailplane.db')}`,
    });
    try {
      await write(server.baseUrl, server.accountKey);
      // once per start: the store (the SQLite file's directory) and the secret (the data directory) check the same one
      expect(
        server
          .output()
          .match(
            /"level":"warn","message":"data directory readable by other users","directory":"[^"]+","mode":"0755"/g,
          ),
      ).toHaveLength(1);
      expect(modeOf(dataDir)).toBe('0755');
      for (const file of ['mailplane.db', 'mailplane.db-wal', 'mailplane.db-shm', 'secret'])
        expect(modeOf(join(dataDir, file)), file).toBe('0600');
    } finally {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('openKyselyStore on SQLite', () => {
  it('creates missing directories 0700 and the database 0600 before the driver writes to it', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'mailplane-files-'));
    const warnings: string[] = [];
    try {
      const dir = join(parent, 'a', 'b');
      const store = await openKyselyStore({
        url: `sqlite:${join(dir, 'm.db')}`,
        logger: { warn: (message) => warnings.push(message) },
      });
      expect([modeOf(join(parent, 'a')), modeOf(dir)]).toEqual(['0700', '0700']);
      expect(modeOf(join(dir, 'm.db'))).toBe('0600');
      expect(modeOf(join(dir, 'm.db-wal'))).toBe('0600');
      await store.close();
      mkdirSync(join(parent, 'open'), { mode: 0o755 });
      chmodSync(join(parent, 'open'), 0o755);
      await (
        await openKyselyStore({
          url: `sqlite:${join(parent, 'open', 'm.db')}`,
          logger: { warn: (message) => warnings.push(message) },
        })
      ).close();
      expect(warnings).toEqual(['data directory readable by other users']);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
