/**
 * Suppression lists at scale on SQLite (docs/performance.md, "Suppression lists").
 * `npx tsx bench/suppressions.ts` prints:
 * - the accept of sends of 1 and of 100 recipients (in-process, as bench/accept-indexes.ts) with an
 *   empty list and with 1,000,000 suppressions stored (BENCH_SUPPRESSIONS), half on the
 *   sub-account's list and half on its account's when the schema has one: main-thread CPU µs per
 *   recipient and recipients per second;
 * - `BENCH_IMPORT=1` adds the CSV import and export of 1,000,000 rows through `mailplane.handle`
 *   (the body streamed, the answer read as the bridge would), with the peak heap and RSS of each.
 */
import SQLite from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMailplane, type HttpRequest } from '../src/index.js';
import { openKyselyStore } from '../adapters/storage/kysely/index.js';
import { openInProcessAccept } from './lib/in-process-accept.js';
import { threadCpu } from './lib/thread-cpu.js';

const STORED = Number(process.env.BENCH_SUPPRESSIONS ?? 1_000_000);
const silent = { info: () => {}, warn: () => {}, error: () => {} };

/** Fills the file's lists with `count` addresses none of the sends goes to (the lookups all miss, the common case). */
function fill(file: string, count: number): void {
  const database = new SQLite(file);
  const { id, account_id: accountId } = database.prepare('select id, account_id from sub_accounts limit 1').get() as {
    id: number;
    account_id: number;
  };
  const accountList = (
    database.prepare("select count(*) as n from sqlite_master where name = 'account_suppressions'").get() as {
      n: number;
    }
  ).n;
  const own = database.prepare(
    "insert into suppressions (sub_account_id, email, email_key, type, smtp_error, created) values (?, ?, ?, 0, '', 1)",
  );
  const shared = accountList
    ? database.prepare(
        "insert into account_suppressions (account_id, email, email_key, type, smtp_error, created) values (?, ?, ?, 0, '', 1)",
      )
    : null;
  database.transaction(() => {
    for (let i = 0; i < count; i++) {
      const email = `stored${i}@suppressed${i % 1000}.example`;
      if (shared && i % 2 === 1) shared.run(accountId, email, email);
      else own.run(id, email, email);
    }
  })();
  database.close();
}

async function measureAccept(recipients: number, concurrency: number, stored: number) {
  const requests = Number(process.env.BENCH_ACCEPT_REQUESTS ?? Math.round(30_000 / recipients));
  const accept = await openInProcessAccept(recipients, concurrency, (file) => fill(file, stored));
  try {
    await accept.sendUntil(Math.ceil(requests / 10));
    const measured = requests - accept.sent;
    const before = threadCpu();
    const start = performance.now();
    await accept.sendUntil(requests);
    const seconds = (performance.now() - start) / 1000;
    const cpuMs = threadCpu().main - before.main;
    return {
      usPerRecipient: Number(((cpuMs * 1000) / (measured * recipients)).toFixed(1)),
      recipientsPerSecond: Math.round((measured * recipients) / seconds),
    };
  } finally {
    await accept.close();
  }
}

/** Runs `work` while sampling the heap and RSS every 50 ms; answers its seconds and the peaks in MiB. */
async function withPeaks(work: () => Promise<void>) {
  let heap = 0;
  let rss = 0;
  const sample = () => {
    const usage = process.memoryUsage();
    heap = Math.max(heap, usage.heapUsed);
    rss = Math.max(rss, usage.rss);
  };
  const timer = setInterval(sample, 50);
  const start = performance.now();
  await work();
  sample();
  clearInterval(timer);
  const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);
  return {
    seconds: Number(((performance.now() - start) / 1000).toFixed(1)),
    peakHeapMiB: mib(heap),
    peakRssMiB: mib(rss),
  };
}

async function measureImportExport(rows: number) {
  const dir = mkdtempSync(join(tmpdir(), 'mailplane-suppressions-'));
  const store = await openKyselyStore({ url: `sqlite:${join(dir, 'mailplane.db')}` });
  const mailplane = createMailplane({
    store,
    secret: 'bench-suppressions-secret-0123456789ab',
    logger: silent,
    rateLimits: false,
  });
  try {
    const { apiKey } = await mailplane.createAccount({ name: 'bench' });
    const created = await mailplane.handle({
      method: 'POST',
      path: '/account/subaccount',
      headers: { 'content-type': 'application/json', 'x-account-apikey': apiKey },
      query: new URLSearchParams(),
      rawBody: JSON.stringify({ name: 'bench' }),
    });
    const sub = (JSON.parse(created.body) as { apiKey: string }).apiKey;
    const encoder = new TextEncoder();
    async function* csv() {
      yield encoder.encode('email,type,expires\n');
      for (let start = 0; start < rows; start += 1000) {
        let chunk = '';
        for (let i = start; i < start + 1000; i++) chunk += `user${i}@import${i % 5000}.example,manual,\n`;
        yield encoder.encode(chunk);
      }
    }
    global.gc?.();
    let report = '';
    const importing = await withPeaks(async () => {
      const request: HttpRequest = {
        method: 'POST',
        path: '/subaccount/suppression/import',
        headers: { 'content-type': 'text/csv', 'x-subaccount-apikey': sub },
        query: new URLSearchParams(),
        bodyStream: csv(),
      };
      report = (await mailplane.handle(request)).body;
    });
    global.gc?.();
    let lines = 0;
    const exporting = await withPeaks(async () => {
      const response = await mailplane.handle({
        method: 'GET',
        path: '/subaccount/suppression/export',
        headers: { 'x-subaccount-apikey': sub },
        query: new URLSearchParams(),
      });
      for await (const chunk of response.stream!) for (const char of chunk) if (char === '\n') lines++;
    });
    return { report: report.slice(0, 80), importing, exporting, exportedLines: lines };
  } finally {
    await mailplane.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const accept = [];
for (const { recipients, concurrency } of [
  { recipients: 1, concurrency: 16 },
  { recipients: 100, concurrency: 4 },
]) {
  const empty = await measureAccept(recipients, concurrency, 0);
  const full = await measureAccept(recipients, concurrency, STORED);
  accept.push({
    recipients,
    'µs/recipient, empty list': empty.usPerRecipient,
    [`µs/recipient, ${STORED} stored`]: full.usPerRecipient,
    'recipients/s, empty list': empty.recipientsPerSecond,
    [`recipients/s, ${STORED} stored`]: full.recipientsPerSecond,
  });
}
console.log('Accepting sends in-process on SQLite, suppression lists empty and full (main thread CPU per recipient):');
console.table(accept);
if (process.env.BENCH_IMPORT === '1') {
  console.log(`CSV import and export of ${STORED} rows through mailplane.handle on SQLite:`);
  console.log(await measureImportExport(STORED));
}
