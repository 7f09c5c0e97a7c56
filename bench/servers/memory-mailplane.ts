/**
 * The mailplane process of the memory benchmark (bench/memory.ts): createMailplane on a SQLite file
 * in a temporary directory, the MX transport with a static resolver pointing every recipient domain
 * at the loopback sink (`MEMORY_SINK_PORT`), and the `/api/v1` router on node:http. It must run with
 * `--expose-gc` (the parent sets `NODE_OPTIONS`) so its memory can be read after a full collection.
 *
 * Besides `/api/v1` it answers, outside the API prefix:
 * - `GET /_bench/memory`: `process.memoryUsage()` after `gc()`, and the delivery jobs pending or running;
 * - `POST /_bench/start`: starts the background workers (delivery), once;
 * - `POST /_bench/snapshot`: writes a V8 heap snapshot into the temp directory, answers its path.
 *
 * The temporary directory is removed at exit unless `BENCH_MEMORY_KEEP` or `BENCH_MEMORY_SNAPSHOTS` is set.
 * Prints `sub-account key: <key>` and then `listening on http://127.0.0.1:<port>/api/v1`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { openKyselyStore } from '../../adapters/storage/kysely/index.js';
import { toNodeHandler } from '../../adapters/http/node/index.js';
import { mxTransport } from '../../adapters/transport/smtp/index.js';
import { silentLogger } from '../../src/logging/logger.js';
import { DELIVER_BATCH_JOB, DELIVER_MESSAGE_JOB, DELIVER_PAGE_JOB } from '../../src/jobs/kinds.js';
import { createMailplane } from '../../src/mailplane.js';
import { benchSender } from '../lib/sender.js';

const collect = (globalThis as { gc?: () => void }).gc;
if (!collect) throw new Error('run with --expose-gc (NODE_OPTIONS=--expose-gc)');
const sinkPort = Number(process.env.MEMORY_SINK_PORT);
if (!sinkPort) throw new Error('MEMORY_SINK_PORT is not set');

const dir = mkdtempSync(join(tmpdir(), 'mailplane-bench-memory-'));
const store = await openKyselyStore({ url: `sqlite:${join(dir, 'mailplane.db')}` });
// Every recipient domain's MX is the sink: delivery takes the real MX path (lookup, pool, SMTP).
const staticMx = {
  resolveMx: async (name: string) => ({
    ok: true as const,
    name,
    chain: [],
    records: [{ exchange: '127.0.0.1', preference: 0 }],
    ttl: 300,
  }),
  resolveA: async () => ({ ok: true as const, name: '127.0.0.1', chain: [], records: ['127.0.0.1'], ttl: 300 }),
};
// Library defaults everywhere else (job concurrency, polling, page size, delivery concurrency):
// the figure is the one an embedding service gets without tuning.
const mailplane = createMailplane({
  store,
  secret: 'bench-secret-bench-secret-bench-secret-0123',
  logger: silentLogger,
  // The bench posts a million recipients in about a minute, past the default 600,000 a minute per
  // key: the limiter still runs (its cost is part of the figure) but never refuses.
  rateLimits: { recipientsPerMinute: 1_000_000_000 },
  transport: () => mxTransport({ resolver: staticMx, port: sinkPort, ehloName: 'bench.local' }),
});

// An account, a sub-account and its domain, marked verified directly (standing in for publishing DNS).
const sub = await benchSender(mailplane);

// Only delivery jobs: the domain's DNS re-check is also a pending job, due hours later.
const DELIVERY_KINDS = [DELIVER_BATCH_JOB, DELIVER_PAGE_JOB, DELIVER_MESSAGE_JOB];
const api = toNodeHandler(mailplane.handle, { prefix: '/api/v1' });
let started = false;

const json = (res: http.ServerResponse, body: unknown) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

async function control(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (req.method === 'GET' && req.url === '/_bench/memory') {
    // Twice: the first collection can leave objects that only become unreachable after finalizers ran.
    collect!();
    collect!();
    const memory = process.memoryUsage();
    let jobs = 0;
    for (const kind of DELIVERY_KINDS) {
      const counts = await store.jobs.countByState(kind);
      jobs += counts.pending + counts.running;
    }
    json(res, { ...memory, jobs });
  } else if (req.method === 'POST' && req.url === '/_bench/start') {
    if (!started) mailplane.start();
    started = true;
    json(res, { started });
  } else if (req.method === 'POST' && req.url === '/_bench/snapshot') {
    json(res, { path: writeHeapSnapshot(join(dir, `heap-${Date.now()}.heapsnapshot`)) });
  } else {
    res.writeHead(404).end();
  }
}

const server = http.createServer((req, res) => {
  if (req.url?.startsWith('/_bench/')) {
    control(req, res).catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  } else {
    api(req, res);
  }
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`sub-account key: ${sub.apiKey}`);
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/v1`);
});

process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void mailplane.close().finally(() => {
    // Heap snapshots are kept for inspection together with the database they describe.
    if (!process.env.BENCH_MEMORY_KEEP && !process.env.BENCH_MEMORY_SNAPSHOTS)
      rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
});
