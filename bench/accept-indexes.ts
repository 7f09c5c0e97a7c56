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
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMailplane, type HttpRequest } from '../src/index.js';
import { openKyselyStore } from '../adapters/storage/kysely/index.js';
import { threadCpu } from './lib/thread-cpu.js';
import { sendBody } from './send.js';

const SIZES = [
  { recipients: 1, concurrency: 16 },
  { recipients: 100, concurrency: 4 },
].filter((s) => process.env.BENCH_ACCEPT_RECIPIENTS === undefined || String(s.recipients) === process.env.BENCH_ACCEPT_RECIPIENTS);
const DROPPED = (process.env.BENCH_DROP_INDEXES ?? 'messages_activity_to,events_activity_to').split(',').filter(Boolean);
const silent = { info: () => {}, warn: () => {}, error: () => {} };

/** Main-thread µs per recipient and recipients per second of `requests` sends of `recipients` each. */
async function measure(recipients: number, concurrency: number, requests: number, drop: readonly string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'mailplane-accept-'));
  const url = `sqlite:${join(dir, 'mailplane.db')}`;
  const store = await openKyselyStore({ url });
  const mailplane = createMailplane({ store, secret: 'bench-accept-indexes-secret-0123456789', logger: silent, rateLimits: false });
  try {
    const { apiKey } = await mailplane.createAccount({ name: 'bench' });
    const call = async (path: string, headers: Record<string, string>, body: unknown) => {
      const rawBody = typeof body === 'string' ? body : JSON.stringify(body);
      const request: HttpRequest = { method: 'POST', path, headers: { 'content-type': 'application/json', ...headers }, query: new URLSearchParams(), rawBody };
      const response = await mailplane.handle(request);
      if (response.status !== 200 && response.status !== 201) throw new Error(`${path}: ${response.status} ${response.body}`);
      return JSON.parse(response.body) as { id: number; apiKey: string };
    };
    const sub = await call('/account/subaccount', { 'x-account-apikey': apiKey }, { name: 'bench' });
    const domain = await call('/subaccount/domain', { 'x-subaccount-apikey': sub.apiKey }, { name: 'bench.example.com' });
    // Stands in for publishing DNS, as bench/send.ts does.
    await store.domains.updateVerification(sub.id, domain.id, { dkimVerified: true, verified: true, updated: 1n });
    if (drop.length > 0) {
      const { default: SQLite } = await import('better-sqlite3');
      const database = new SQLite(url.slice('sqlite:'.length));
      for (const index of drop) database.exec(`drop index ${index}`);
      database.close();
    }
    const body = sendBody(recipients);
    const send = (i: number) => call('/subaccount/email', { 'x-subaccount-apikey': sub.apiKey }, body(i));
    let next = 0;
    const run = (until: number) => Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < until) await send(next++);
    }));
    await run(Math.ceil(requests / 10));
    const measured = requests - next;
    const before = threadCpu();
    const start = performance.now();
    await run(requests);
    const seconds = (performance.now() - start) / 1000;
    const cpuMs = threadCpu().main - before.main;
    return { usPerRecipient: (cpuMs * 1000) / (measured * recipients), recipientsPerSecond: (measured * recipients) / seconds };
  } finally {
    await mailplane.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
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
