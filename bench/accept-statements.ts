/**
 * Where an accepted send's SQLite time goes, statement by statement. `npx tsx
 * bench/accept-statements.ts` accepts sends in this process (bench/lib/in-process-accept.ts: no
 * HTTP, no rate limiter), times every better-sqlite3 statement the accept runs (by its SQL text),
 * and prints each statement's runs and microseconds per send, the SQL's total, and the main
 * thread's CPU per send around it. BENCH_ACCEPT_RECIPIENTS sets the recipients per send (default 1),
 * BENCH_ACCEPT_REQUESTS the sends measured (default 150,000 recipients' worth, at most 20,000 sends).
 * docs/performance.md, "What stands between each path and its aim", says what it showed.
 */
import SQLite from 'better-sqlite3';
import { openInProcessAccept } from './lib/in-process-accept.js';
import { threadCpu } from './lib/thread-cpu.js';

const RECIPIENTS = Number(process.env.BENCH_ACCEPT_RECIPIENTS ?? 1);
const REQUESTS = Number(process.env.BENCH_ACCEPT_REQUESTS ?? Math.min(20_000, Math.round(150_000 / RECIPIENTS)));
const CONCURRENCY = RECIPIENTS === 1 ? 16 : 4;

/** Time spent in each statement, by its verb and SQL text, while `timing` is on. */
const spent = new Map<string, { runs: number; ns: bigint }>();
let timing = false;

/**
 * Wraps the methods of better-sqlite3's statements (one prototype for all of them, which Kysely's
 * driver and mailplane's bulk inserts both call) so each call is timed while `timing` is on.
 */
function timeStatements(): void {
  const probe = new SQLite(':memory:');
  const prototype = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, (...args: unknown[]) => unknown>;
  probe.close();
  for (const name of ['run', 'all', 'get', 'iterate']) {
    const original = prototype[name]!;
    prototype[name] = function (this: { source: string }, ...args: unknown[]) {
      if (!timing) return original.apply(this, args);
      const started = process.hrtime.bigint();
      try {
        return original.apply(this, args);
      } finally {
        const key = `${name} ${this.source.replace(/\s+/g, ' ').slice(0, 100)}`;
        const entry = spent.get(key) ?? { runs: 0, ns: 0n };
        entry.runs += 1;
        entry.ns += process.hrtime.bigint() - started;
        spent.set(key, entry);
      }
    };
  }
}

timeStatements();
const accept = await openInProcessAccept(RECIPIENTS, CONCURRENCY);
try {
  await accept.sendUntil(Math.ceil(REQUESTS / 10));
  const measured = REQUESTS - accept.sent;
  const before = threadCpu();
  timing = true;
  await accept.sendUntil(REQUESTS);
  timing = false;
  const cpuUs = (threadCpu().main - before.main) * 1000;
  const rows = [...spent].sort((a, b) => Number(b[1].ns - a[1].ns));
  const sqlUs = rows.reduce((sum, [, { ns }]) => sum + Number(ns) / 1000, 0);
  console.log(`Accepting sends of ${RECIPIENTS} recipient(s) in-process on SQLite, ${measured} sends measured:`);
  console.table(
    rows.map(([statement, { runs, ns }]) => ({
      'runs per send': Number((runs / measured).toFixed(3)),
      'µs per send': Number((Number(ns) / 1000 / measured).toFixed(1)),
      statement,
    })),
  );
  console.log(
    `SQL ${(sqlUs / measured).toFixed(1)} µs of ${(cpuUs / measured).toFixed(1)} µs main-thread CPU per send (${((100 * sqlUs) / cpuUs).toFixed(0)} %)`,
  );
} finally {
  await accept.close();
}
