/**
 * Wake-ups across nodes: a job enqueued through one store starts in a runner on another store of
 * the same PostgreSQL database at once (LISTEN/NOTIFY), not at the runner's next poll; when the
 * listening connection is killed it comes back and wake-ups resume. SQLite and the memory store
 * wake their own runners.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobQueue, createJobRunner, type JobRunner, type MailplaneStore } from 'mailplane';
import { openKyselyStore } from 'mailplane/storage/kysely';
import { createMemoryStore } from 'mailplane/testing';
import { freshDatabaseUrl, pgUrl } from '../support/databases.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const clock = { now: () => Date.now() };
/** Far longer than any test waits: a job that starts did so because it was woken. */
const POLL_MS = 600_000;
/**
 * How long a wake-up may take to start a job: tens of milliseconds on a loaded machine (11-35 ms
 * measured with two cores busy), so a wait ends by the wake-up, never by a slow machine; without
 * one the job waits for the poll (POLL_MS), far past it.
 */
const WAKE_WAIT_MS = 20_000;

/** A runner on `store` that records when each `tick` job started. */
function startRunner(store: MailplaneStore): { runner: JobRunner; started: Array<{ at: number; sentAt: number }> } {
  const started: Array<{ at: number; sentAt: number }> = [];
  const runner = createJobRunner(
    { store, clock, logger: silent },
    {
      pollIntervalMs: POLL_MS,
      handlers: { tick: async (job) => void started.push({ at: Date.now(), sentAt: Number(job.payload.sentAt) }) },
    },
  );
  runner.start();
  return { runner, started };
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Waits until the store's LISTEN connection is up: the first enqueue must not race it. `gone`: pids
 * of terminated backends, which pg_stat_activity can still list for a moment after
 * pg_terminate_backend returns.
 */
async function listening(admin: pg.Client, count: number, gone: readonly number[] = []): Promise<number[]> {
  let pids: number[] = [];
  for (let i = 0; i < 400 && pids.length < count; i++) {
    const { rows } = await admin.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN mailplane_jobs'",
    );
    pids = rows.map((r) => r.pid).filter((pid) => !gone.includes(pid));
    if (pids.length < count) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect(pids.length).toBe(count);
  return pids;
}

describe.skipIf(!pgUrl)('wake-ups across two nodes on one PostgreSQL', () => {
  let url: string;
  let drop: () => Promise<void>;
  let nodeA: MailplaneStore;
  let nodeB: MailplaneStore;
  let admin: pg.Client;
  beforeAll(async () => {
    ({ url, drop } = await freshDatabaseUrl('postgres'));
    nodeA = await openKyselyStore({ url, maxConnections: 3 });
    nodeB = await openKyselyStore({ url, maxConnections: 3 });
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await nodeA?.close();
    await nodeB?.close();
    await drop?.();
  });

  it(
    'starts a job enqueued on node A in node B’s runner at once, and again after B’s listening connection was killed',
    { timeout: 60_000 },
    async () => {
      const { runner, started } = startRunner(nodeB);
      try {
        const [pid] = await listening(admin, 1);
        const queueA = createJobQueue({ store: nodeA, clock, logger: silent });
        for (let i = 0; i < 5; i++) {
          await queueA.enqueue([{ kind: 'tick', payload: { sentAt: Date.now() } }]);
          await waitFor(() => started.length === i + 1, WAKE_WAIT_MS);
        }
        // Generous for a loaded machine; the bench measures the real figure (milliseconds).
        for (const s of started) expect(s.at - s.sentAt).toBeLessThan(2_000);

        // The listening connection dies (server restart, admin termination): it comes back with backoff.
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        const [again] = await listening(admin, 1, [pid!]);
        expect(again).not.toBe(pid);
        await queueA.enqueue([{ kind: 'tick', payload: { sentAt: Date.now() } }]);
        await waitFor(() => started.length === 6, WAKE_WAIT_MS);
      } finally {
        await runner.stop();
      }
    },
  );

  it(
    'notifies only at commit: a rolled-back enqueue wakes no one, a committed one does',
    { timeout: 30_000 },
    async () => {
      let wakes = 0;
      const unsubscribe = nodeB.onJobsDue!(() => wakes++);
      try {
        await listening(admin, 1);
        wakes = 0;
        await expect(
          nodeA.transaction(async (tx) => {
            await tx.jobs.enqueue([{ kind: 'none', payload: {}, runAt: Date.now() }]);
            throw new Error('roll back');
          }),
        ).rejects.toThrow('roll back');
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(wakes).toBe(0);
        await nodeA.transaction((tx) => tx.jobs.enqueue([{ kind: 'none', payload: {}, runAt: Date.now() }]));
        await waitFor(() => wakes > 0, WAKE_WAIT_MS);
      } finally {
        unsubscribe();
      }
    },
  );
});

describe('wake-ups in one process', () => {
  it.each(['memory', 'sqlite'] as const)(
    '%s: an enqueue through the store (no queue notify) wakes the runner at commit',
    { timeout: 30_000 },
    async (kind) => {
      const fresh = kind === 'sqlite' ? await freshDatabaseUrl('sqlite') : null;
      const store = fresh ? await openKyselyStore({ url: fresh.url }) : createMemoryStore();
      const { runner, started } = startRunner(store);
      try {
        await store.transaction((tx) =>
          tx.jobs.enqueue([{ kind: 'tick', payload: { sentAt: Date.now() }, runAt: Date.now() }]),
        );
        await store.jobs.enqueue([{ kind: 'tick', payload: { sentAt: Date.now() }, runAt: Date.now() }]);
        await waitFor(() => started.length === 2, WAKE_WAIT_MS);
      } finally {
        await runner.stop();
        await store.close();
        await fresh?.drop();
      }
    },
  );
});
