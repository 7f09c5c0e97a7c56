/**
 * What the activity indexes cost an accepted send on SQLite. `npx tsx bench/accept-indexes.ts`
 * accepts sends of 1 and of 100 recipients in this process (`mailplane.handle`, no HTTP, so the
 * figure is the accept path alone: validation, checks, the rows and their commit), once on a
 * database with every index and once with the indexes named in BENCH_DROP_INDEXES dropped (default
 * the two recipient indexes, `messages_activity_to` and `events_activity_to`), and prints the main
 * thread's CPU microseconds per recipient and recipients per second of each.
 * BENCH_ACCEPT_RECIPIENTS (e.g. `100`) runs one size; BENCH_ACCEPT_REQUESTS sets the requests per
 * measurement (default 150,000 recipients' worth). docs/performance.md, "Accept throughput", says
 * what the figures showed.
 */
import SQLite from 'better-sqlite3';
import { openInProcessAccept } from './lib/in-process-accept.js';
import { threadCpu } from './lib/thread-cpu.js';

const SIZES = [
  { recipients: 1, concurrency: 16 },
  { recipients: 100, concurrency: 4 },
].filter(
  (s) =>
    process.env.BENCH_ACCEPT_RECIPIENTS === undefined || String(s.recipients) === process.env.BENCH_ACCEPT_RECIPIENTS,
);
const DROPPED = (process.env.BENCH_DROP_INDEXES ?? 'messages_activity_to,events_activity_to')
  .split(',')
  .filter(Boolean);

/** Main-thread µs per recipient and recipients per second of `requests` sends of `recipients` each. */
async function measure(recipients: number, concurrency: number, requests: number, drop: readonly string[]) {
  const accept = await openInProcessAccept(recipients, concurrency, (file) => {
    if (drop.length === 0) return;
    const database = new SQLite(file);
    for (const index of drop) database.exec(`drop index ${index}`);
    database.close();
  });
  try {
    await accept.sendUntil(Math.ceil(requests / 10));
    const measured = requests - accept.sent;
    const before = threadCpu();
    const start = performance.now();
    await accept.sendUntil(requests);
    const seconds = (performance.now() - start) / 1000;
    const cpuMs = threadCpu().main - before.main;
    return {
      usPerRecipient: (cpuMs * 1000) / (measured * recipients),
      recipientsPerSecond: (measured * recipients) / seconds,
    };
  } finally {
    await accept.close();
  }
}

const rows = [];
for (const { recipients, concurrency } of SIZES) {
  const requests = Number(process.env.BENCH_ACCEPT_REQUESTS ?? Math.round(150_000 / recipients));
  const all = await measure(recipients, concurrency, requests, []);
  const without = await measure(recipients, concurrency, requests, DROPPED);
  rows.push({
    recipients,
    'µs/recipient, every index': Number(all.usPerRecipient.toFixed(1)),
    [`µs/recipient, without ${DROPPED.join(', ')}`]: Number(without.usPerRecipient.toFixed(1)),
    'recipients/s, every index': Math.round(all.recipientsPerSecond),
    'recipients/s, without': Math.round(without.recipientsPerSecond),
  });
}
console.log('Accepting sends in-process on SQLite (main thread CPU per recipient):');
console.table(rows);
