/**
 * `mailplane.handleHealth`: `/healthz` answers while the process runs; `/readyz` answers 200 when
 * the store answers with its schema current and the job runner polls, and 503 with the reason
 * otherwise. Real SQLite files and a real PostgreSQL (reached directly, through a loopback
 * forwarder the test cuts, or at a closed port).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createMailplane, silentLogger, type Mailplane, type MailplaneStore } from 'mailplane';
import { mailplaneMigrations, openKyselyStore } from 'mailplane/storage/kysely';
import { createMemoryStore } from 'mailplane/testing';
import { TEST_SECRET } from '../support/api.js';
import { freshDatabaseUrl, openTestStore, pgUrl, storeKinds } from '../support/databases.js';
import { closedPort, startTcpProxy } from '../support/tcp-proxy.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function instance(store: MailplaneStore): Mailplane {
  const mailplane = createMailplane({ store, secret: TEST_SECRET, logger: silentLogger, jobs: { pollIntervalMs: 50 } });
  cleanups.push(() => mailplane.close().catch(() => {}));
  return mailplane;
}

async function get(mailplane: Mailplane, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await mailplane.handleHealth({ method: 'GET', path, headers: {}, query: new URLSearchParams() });
  return { status: response.status, body: JSON.parse(response.body) as Record<string, unknown> };
}

describe.each(storeKinds)('health endpoints on %s', (kind) => {
  it('answers /healthz, and /readyz ready while the runner polls, 503 once it stopped, ready once restarted', async () => {
    const { store, close } = await openTestStore(kind);
    cleanups.push(close);
    const mailplane = instance(store);
    expect(await get(mailplane, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await get(mailplane, '/readyz')).toEqual({
      status: 200,
      body: { status: 'ready', checks: { store: 'ok', secret: 'ok', jobRunner: 'off' } },
    });

    await mailplane.start();
    expect(await get(mailplane, '/readyz')).toMatchObject({ status: 200, body: { checks: { jobRunner: 'ok' } } });

    await mailplane.stop();
    const stopped = await get(mailplane, '/readyz');
    expect(stopped.status).toBe(503);
    expect(stopped.body).toMatchObject({
      code: 'NOT_READY',
      message: 'not ready: the job runner has stopped',
      checks: { store: 'ok', jobRunner: 'the job runner has stopped' },
    });

    // start() after stop() runs the jobs again, and the node is ready again.
    await mailplane.start();
    expect(await get(mailplane, '/readyz')).toMatchObject({ status: 200, body: { checks: { jobRunner: 'ok' } } });
  });

  it('is not ready while migrations are pending', async () => {
    const { url, drop } = await freshDatabaseUrl(kind);
    cleanups.push(drop);
    const mailplane = instance(await openKyselyStore({ url, migrate: false }));
    const answer = await get(mailplane, '/readyz');
    expect(answer.status).toBe(503);
    const names = Object.keys(await mailplaneMigrations('sqlite').getMigrations()).sort();
    expect(names.length).toBeGreaterThanOrEqual(15);
    expect(answer.body.message).toBe(`not ready: store: ${names.length} migration(s) not applied: ${names.join(', ')}`);
  });
});

describe.skipIf(!pgUrl)('readiness when PostgreSQL cannot be reached', () => {
  it('answers 503 for a store pointed at a closed port', async () => {
    const port = await closedPort();
    const mailplane = instance(
      await openKyselyStore({ url: `postgres://postgres@127.0.0.1:${port}/postgres`, migrate: false }),
    );
    expect((await get(mailplane, '/healthz')).status).toBe(200);
    const answer = await get(mailplane, '/readyz');
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({
      code: 'NOT_READY',
      checks: { store: expect.stringMatching(/^unreachable: .*ECONNREFUSED/), secret: 'unchecked' },
    });
  });

  it('turns 503 when the path to the server is cut, and the runner keeps its own state', async () => {
    const { url, drop } = await freshDatabaseUrl('postgres');
    cleanups.push(drop);
    const target = new URL(url);
    const proxy = await startTcpProxy(Number(target.port), target.hostname);
    target.port = String(proxy.port);
    const mailplane = instance(await openKyselyStore({ url: target.toString() }));
    await mailplane.start();
    expect((await get(mailplane, '/readyz')).status).toBe(200);
    await proxy.cut();
    const answer = await get(mailplane, '/readyz');
    expect(answer.status).toBe(503);
    expect(String(answer.body.message)).toMatch(/^not ready: store: unreachable: /);
  });
});

describe('health on the in-memory store', () => {
  it('is ready, and answers unknown paths and methods with JSON errors', async () => {
    const mailplane = instance(createMemoryStore());
    expect((await get(mailplane, '/readyz')).status).toBe(200);
    expect(await get(mailplane, '/elsewhere')).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    const post = await mailplane.handleHealth({
      method: 'POST',
      path: '/readyz',
      headers: {},
      query: new URLSearchParams(),
    });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });
});
