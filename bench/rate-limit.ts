/**
 * The cost of the API rate limiter on the send path: 1-recipient sends through the router in this
 * process (no HTTP, so the limiter's share is not diluted by sockets), with the default limits and
 * with `rateLimits: false`, alternating so that machine noise hits both alike. SQLite always;
 * PostgreSQL when `BENCH_PG_URL` names a server (a database is created and dropped per run).
 *
 * Run: `npx tsx bench/rate-limit.ts` (`BENCH_RATE_LIMIT_MS` per run, default 3000; 3 rounds).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openKyselyStore } from '../adapters/storage/kysely/index.js';
import { silentLogger } from '../src/logging/logger.js';
import { createMailplane } from '../src/mailplane.js';
import { benchSender } from './lib/sender.js';

const durationMs = Number(process.env.BENCH_RATE_LIMIT_MS ?? 3000);
const CONCURRENCY = 16;

async function freshUrl(kind: 'sqlite' | 'postgres'): Promise<{ url: string; drop: () => Promise<void> }> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'mailplane-bench-rl-'));
    return {
      url: `sqlite:${join(dir, 'mailplane.db')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `mailplane_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: process.env.BENCH_PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(process.env.BENCH_PG_URL!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const dropper = new pg.Client({ connectionString: process.env.BENCH_PG_URL });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}

/** What one run measured. */
interface RunResult {
  perSecond: number;
  /** CPU time of this process per send (user + system), in microseconds: steadier than rates on a busy machine. */
  cpuMicros: number;
}

/** Sends per second and CPU per send for `durationMs` with `CONCURRENCY` callers, limits on or off. */
async function run(kind: 'sqlite' | 'postgres', limited: boolean): Promise<RunResult> {
  const { url, drop } = await freshUrl(kind);
  const store = await openKyselyStore({ url });
  const mailplane = createMailplane({
    store,
    secret: 'bench-secret-bench-secret-bench-secret-0123',
    logger: silentLogger,
    rateLimits: limited ? {} : false,
  });
  try {
    const sub = await benchSender(mailplane);
    let sent = 0;
    let n = 0;
    const send = async () => {
      const rawBody = JSON.stringify({
        from: { email: 'news@bench.example.com' },
        to: [{ email: `r${n++}@example.org` }],
        subject: 'Hello',
        textBody: 'Hi',
      });
      const response = await mailplane.handle({
        method: 'POST',
        path: '/subaccount/email',
        headers: { 'content-type': 'application/json', 'x-subaccount-apikey': sub.apiKey },
        query: new URLSearchParams(),
        rawBody,
      });
      if (response.status !== 200) throw new Error(`send: ${response.status} ${response.body}`);
    };
    for (let i = 0; i < 200; i++) await send(); // warm-up: statement caches, JIT
    const end = Date.now() + durationMs;
    const start = performance.now();
    const cpu = process.cpuUsage();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < end) {
          await send();
          sent++;
        }
      }),
    );
    const used = process.cpuUsage(cpu);
    return { perSecond: sent / ((performance.now() - start) / 1000), cpuMicros: (used.user + used.system) / sent };
  } finally {
    await mailplane.close();
    await drop();
  }
}

const kinds: Array<'sqlite' | 'postgres'> = process.env.BENCH_PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];
const rounds = Number(process.env.BENCH_RATE_LIMIT_ROUNDS ?? 3);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const kind of kinds) {
  const on: RunResult[] = [];
  const off: RunResult[] = [];
  for (let round = 0; round < rounds; round++) {
    off.push(await run(kind, false));
    on.push(await run(kind, true));
  }
  const rate = (results: RunResult[]) => median(results.map((r) => r.perSecond));
  const cpu = (results: RunResult[]) => median(results.map((r) => r.cpuMicros));
  console.log(
    `${kind}: limits off ${rate(off).toFixed(0)} sends/s, ${cpu(off).toFixed(0)} µs CPU/send; ` +
      `limits on ${rate(on).toFixed(0)} sends/s, ${cpu(on).toFixed(0)} µs CPU/send ` +
      `(medians of ${rounds}; rate on/off ${(rate(on) / rate(off)).toFixed(3)}, CPU +${(cpu(on) - cpu(off)).toFixed(0)} µs)`,
  );
}
