/**
 * Cluster wake-ups: how long a job enqueued on node A waits before it starts on another node of
 * the same PostgreSQL database, with LISTEN/NOTIFY (`store.onJobsDue`) and, as the baseline, with
 * polling alone at the default interval (1 s). Each node is its own store (own connection pool,
 * own LISTEN connection) in this process; jobs are enqueued one at a time, a few milliseconds
 * apart, so each latency is one wake-up, not a batch. Needs `BENCH_PG_URL` or
 * `MAILPLANE_TEST_PG_URL` (a server where it may create and drop a database).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { openKyselyStore } from '../adapters/storage/kysely/index.js';
import { silentLogger } from '../src/logging/logger.js';
import { createJobQueue } from '../src/jobs/queue.js';
import { createJobRunner } from '../src/jobs/runner.js';
import type { MailplaneStore } from '../src/store/index.js';
import { percentile } from './lib/median.js';
import { freshDatabase } from './lib/postgres.js';

/** One row of the report. */
export interface ClusterBenchRow {
  case: string;
  jobs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Of p50: the enqueue's own transaction on node A (insert, NOTIFY, commit). */
  enqueueP50Ms: number;
  /** From the enqueue's commit (its call returned) to the start, p50 and p99. */
  afterCommitP50Ms: number;
  afterCommitP99Ms: number;
  /** How many of the jobs each worker node started. */
  startedOn: string;
}

const clock = { now: () => Date.now() };
const POLL_MS = 1_000;

const round = (ms: number) => Math.round(ms * 10) / 10;

/** Enqueues `count` jobs on `producer`, one at a time, and measures when a worker node starts each. */
async function measure(
  label: string,
  producer: MailplaneStore,
  workers: MailplaneStore[],
  count: number,
): Promise<ClusterBenchRow> {
  const enqueuedAt = new Map<number, number>();
  const startedAt = new Map<number, number>();
  const latencies: number[] = [];
  const enqueueTimes: number[] = [];
  const committedAt = new Map<number, number>();
  const afterCommit: number[] = [];
  const perNode = workers.map(() => 0);
  let waiting: (() => void) | undefined;
  const runners = workers.map((store, index) =>
    createJobRunner(
      { store, clock, logger: silentLogger },
      {
        pollIntervalMs: POLL_MS,
        handlers: {
          tick: async (job) => {
            const now = performance.now();
            latencies.push(now - enqueuedAt.get(Number(job.payload.n))!);
            startedAt.set(Number(job.payload.n), now);
            perNode[index]! += 1;
            waiting?.();
          },
        },
      },
    ),
  );
  for (const runner of runners) runner.start();
  // Let the LISTEN connections come up before the first job.
  await delay(500);
  const queue = createJobQueue({ store: producer, clock, logger: silentLogger });
  try {
    for (let n = 0; n < count; n++) {
      const started = new Promise<void>((resolve) => (waiting = resolve));
      enqueuedAt.set(n, performance.now());
      await queue.enqueue([{ kind: 'tick', payload: { n } }]);
      committedAt.set(n, performance.now());
      enqueueTimes.push(committedAt.get(n)! - enqueuedAt.get(n)!);
      await started;
      // A start may come before the enqueue call returns (the notification beat the reply): 0 then.
      afterCommit.push(Math.max(0, startedAt.get(n)! - committedAt.get(n)!));
      // Apart, at an offset to the poll that varies: each job is one wake-up.
      await delay(2 + (n % 7));
    }
  } finally {
    for (const runner of runners) await runner.stop();
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    case: label,
    jobs: count,
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    maxMs: round(sorted[sorted.length - 1]!),
    afterCommitP50Ms: round(
      percentile(
        [...afterCommit].sort((x, y) => x - y),
        50,
      ),
    ),
    afterCommitP99Ms: round(
      percentile(
        [...afterCommit].sort((x, y) => x - y),
        99,
      ),
    ),
    enqueueP50Ms: round(
      percentile(
        [...enqueueTimes].sort((x, y) => x - y),
        50,
      ),
    ),
    startedOn: perNode.map((n, i) => `${String.fromCharCode(66 + i)}:${n}`).join(' '),
  };
}

/** `store` as a node without wake-ups would see it: it finds other nodes' jobs by polling. */
const pollingOnly = (store: MailplaneStore): MailplaneStore =>
  Object.create(store, { onJobsDue: { value: undefined } }) as MailplaneStore;

/** The cluster bench: rows for NOTIFY with two and three nodes, and the polling baseline. */
export async function benchCluster(seconds: number): Promise<ClusterBenchRow[] | string> {
  const server = process.env.BENCH_PG_URL ?? process.env.MAILPLANE_TEST_PG_URL;
  if (!server) return 'skipped: set BENCH_PG_URL (or MAILPLANE_TEST_PG_URL) to a PostgreSQL server';
  const { url, drop } = await freshDatabase(server);
  const nodes: MailplaneStore[] = [];
  try {
    for (let i = 0; i < 3; i++) nodes.push(await openKyselyStore({ url, maxConnections: 4 }));
    const [a, b, c] = nodes as [MailplaneStore, MailplaneStore, MailplaneStore];
    // About `seconds` for each NOTIFY case; the baseline waits ~0.5 s a job, so it takes fewer.
    const jobs = Math.max(100, seconds * 100);
    return [
      await measure('2 nodes, LISTEN/NOTIFY (A enqueues, B runs)', a, [b], jobs),
      await measure('3 nodes, LISTEN/NOTIFY (A enqueues, B and C run)', a, [b, c], jobs),
      await measure(`2 nodes, polling every ${POLL_MS} ms (baseline)`, a, [pollingOnly(b)], Math.max(20, seconds * 2)),
    ];
  } finally {
    for (const node of nodes) await node.close();
    await drop();
  }
}
