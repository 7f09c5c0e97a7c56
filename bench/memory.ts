/**
 * `npm run bench:memory`: memory of a mailplane process while it accepts and drains a bulk send of
 * `BENCH_MEMORY_RECIPIENTS` recipients (default 1,000,000; about 40 minutes on the 2-core machine).
 *
 * Three processes: mailplane (bench/servers/memory-mailplane.ts: SQLite file, MX transport to the
 * sink, node:http, run with --expose-gc), an SMTP sink that counts and discards
 * (bench/servers/memory-sink.ts), and this one, which posts the recipients over the real HTTP API
 * in requests of 1,000 (personalised subject, ~5 KB HTML body) and reads the mailplane process's
 * heap (after a full GC) and RSS every 5 % of accepted and of delivered recipients.
 *
 * Workers run while the API accepts (`BENCH_MEMORY_MODE=concurrent`, the default): that is how a
 * service runs, and it is the peak, since request parsing, group commits, job claims and SMTP
 * sessions are all alive at once. `BENCH_MEMORY_MODE=sequential` accepts everything first and then
 * starts the workers, which separates the two curves. Other settings: `BENCH_MEMORY_CONCURRENCY`
 * (requests in flight, default 2), `BENCH_MEMORY_SNAPSHOTS=1` (V8 heap snapshots at 10 % and at
 * the end of the drain, kept in the mailplane process's temp directory; writing one raises the RSS
 * of every later reading, so leave it off for the RSS figures).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { startServer, type ServerProcess } from './lib/process.js';
import { fitPer100k, flatnessVerdict, type MemorySample } from './lib/memory-report.js';

const RECIPIENTS = Number(process.env.BENCH_MEMORY_RECIPIENTS ?? 1_000_000);
const PER_REQUEST = 1000;
const MODE = process.env.BENCH_MEMORY_MODE === 'sequential' ? 'sequential' : 'concurrent';
const IN_FLIGHT = Math.max(1, Number(process.env.BENCH_MEMORY_CONCURRENCY ?? 2));
const SNAPSHOTS = Boolean(process.env.BENCH_MEMORY_SNAPSHOTS);
/** Sampling interval: every 5 % of the run. */
const STEP = Math.max(1, Math.ceil(RECIPIENTS / 20));
/** A drain that receives nothing for this long has stalled: the run fails instead of hanging. */
const STALL_MS = 180_000;
const MB = 1024 * 1024;

/** ~5 KB of HTML with a personalised greeting and the unsubscribe link. */
const HTML = `<html><body><p>Hello {{first}},</p>${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p>\n'.repeat(58)}<p><a href="{{unsubscribe}}">Unsubscribe</a></p></body></html>`;

const requestBody = (first: number, count: number) =>
  JSON.stringify({
    from: { email: 'news@bench.example.com', name: 'Bench News' },
    to: Array.from({ length: count }, (_, i) => {
      const n = first + i;
      // 100 recipient domains: per-domain state (pools, caches) is exercised, as in a real list.
      return {
        email: `r${n}@d${n % 100}.rcpt.example`,
        name: `Reader ${n}`,
        customFields: { first: `Reader${n}`, n: String(n) },
      };
    }),
    subject: 'Your digest, {{first}} (#{{n}})',
    htmlBody: HTML,
    textBody: 'Hello {{first}}, your digest #{{n}}. Unsubscribe: {{unsubscribe}}',
  });

const today = () => new Date().toISOString().slice(0, 10);

async function getJson<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

async function main(): Promise<void> {
  const sink = await startServer('bench/servers/memory-sink.ts', {});
  let mailplane: ServerProcess | undefined;
  try {
    const { smtpPort } = await getJson<{ smtpPort: number }>(sink.baseUrl);
    mailplane = await startServer('bench/servers/memory-mailplane.ts', {
      MEMORY_SINK_PORT: String(smtpPort),
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --expose-gc`.trim(),
    });
    await run(sink, mailplane);
  } finally {
    await mailplane?.stop();
    await sink.stop();
  }
}

async function run(sink: ServerProcess, mailplane: ServerProcess): Promise<void> {
  const subKey = /sub-account key: (\S+)/.exec(mailplane.output())![1]!;
  const origin = new URL(mailplane.baseUrl).origin;
  const firstDay = today();
  const samples: MemorySample[] = [];
  const snapshots: string[] = [];
  let accepted = 0;
  let delivered = 0;
  let accepting = true;
  let t0 = performance.now();

  // Samples are taken one at a time: two gc() calls racing would measure each other.
  let chain: Promise<unknown> = Promise.resolve();
  const sample = (phase: string) => {
    const taken = chain.then(async () => {
      // Two posters crossing marks together queue two samples of the same state: keep one.
      const previous = samples[samples.length - 1];
      if (previous && previous.phase === phase && previous.accepted === accepted && previous.delivered === delivered)
        return previous;
      const memory = await getJson<{ heapUsed: number; rss: number; jobs: number }>(`${origin}/_bench/memory`);
      const row: MemorySample = {
        phase,
        accepted,
        delivered,
        heapUsedMb: memory.heapUsed / MB,
        rssMb: memory.rss / MB,
        elapsedS: (performance.now() - t0) / 1000,
        jobs: memory.jobs,
      };
      samples.push(row);
      console.log(
        `${row.phase.padEnd(12)} accepted ${String(accepted).padStart(8)}  delivered ${String(delivered).padStart(8)}  ` +
          `heap ${row.heapUsedMb.toFixed(1).padStart(6)} MB  rss ${row.rssMb.toFixed(1).padStart(6)} MB  ${row.elapsedS.toFixed(1).padStart(7)} s  jobs ${row.jobs}`,
      );
      return row;
    });
    chain = taken.catch(() => undefined);
    return taken;
  };
  const snapshot = async () => {
    if (!SNAPSHOTS) return;
    snapshots.push((await getJson<{ path: string }>(`${origin}/_bench/snapshot`, { method: 'POST' })).path);
  };

  console.log(
    `memory benchmark: ${RECIPIENTS} recipients, ${PER_REQUEST} per request, ${IN_FLIGHT} requests in flight, workers ${MODE === 'concurrent' ? 'on while accepting' : 'started after acceptance'} (Node ${process.version})\n`,
  );
  await sample('start');
  t0 = performance.now();
  if (MODE === 'concurrent') await getJson(`${origin}/_bench/start`, { method: 'POST' });

  // Delivered: polled from the sink; a sample at every 5 % step received.
  let nextDrainMark = STEP;
  let lastProgress = performance.now();
  let drainError: Error | undefined;
  const drained = (async () => {
    while (delivered < RECIPIENTS) {
      await delay(250);
      const { count } = await getJson<{ count: number }>(sink.baseUrl);
      if (count > delivered) lastProgress = performance.now();
      delivered = count;
      const started = MODE === 'concurrent' || !accepting;
      if (started && performance.now() - lastProgress > STALL_MS)
        throw new Error(`the drain stalled at ${delivered} of ${RECIPIENTS}\n${mailplane.output().slice(-2000)}`);
      if (!started) lastProgress = performance.now();
      if (delivered >= nextDrainMark) {
        const crossedTenth = nextDrainMark <= RECIPIENTS * 0.1 && delivered >= RECIPIENTS * 0.1;
        while (nextDrainMark <= delivered) nextDrainMark += STEP;
        await sample(accepting ? 'drain+accept' : 'drain');
        if (crossedTenth) await snapshot();
      }
    }
  })().catch((error: unknown) => {
    drainError = error instanceof Error ? error : new Error(String(error));
  });

  // Accepted: IN_FLIGHT workers posting 1,000 recipients at a time; a sample at every 5 % step.
  let nextOffset = 0;
  let nextAcceptMark = STEP;
  const poster = async () => {
    while (nextOffset < RECIPIENTS && !drainError) {
      const first = nextOffset;
      const count = Math.min(PER_REQUEST, RECIPIENTS - first);
      nextOffset += count;
      const entries = await getJson<unknown[]>(`${mailplane.baseUrl}/subaccount/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-subaccount-apikey': subKey },
        body: requestBody(first, count),
      });
      if (entries.length !== count) throw new Error(`accepted ${entries.length} of ${count} recipients`);
      accepted += count;
      if (accepted >= nextAcceptMark) {
        while (nextAcceptMark <= accepted) nextAcceptMark += STEP;
        await sample('accept');
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, poster));
  accepting = false;
  if (MODE === 'sequential') await getJson(`${origin}/_bench/start`, { method: 'POST' });
  await drained;
  if (drainError) throw drainError;

  // The sink has everything; wait until mailplane has recorded every outcome (no job left).
  const settleBy = performance.now() + STALL_MS;
  for (;;) {
    const memory = await getJson<{ jobs: number }>(`${origin}/_bench/memory`);
    if (memory.jobs === 0) break;
    if (performance.now() > settleBy)
      throw new Error(`${memory.jobs} delivery jobs still pending after the sink received everything`);
    await delay(500);
  }
  await sample('drained');
  await snapshot();
  await delay(5_000);
  await sample('idle 5 s');

  const stats = await getJson<{ processed: number; delivered: number }>(
    `${mailplane.baseUrl}/subaccount/stat/aggregate?from=${firstDay}&to=${today()}`,
    {
      headers: { 'x-subaccount-apikey': subKey },
    },
  );
  report(samples, stats, snapshots);
}

function report(samples: MemorySample[], stats: { processed: number; delivered: number }, snapshots: string[]): void {
  console.log();
  console.table(
    samples.map((s) => ({
      phase: s.phase,
      accepted: s.accepted,
      delivered: s.delivered,
      'heapUsed MB': Number(s.heapUsedMb.toFixed(1)),
      'RSS MB': Number(s.rssMb.toFixed(1)),
      'elapsed s': Number(s.elapsedS.toFixed(1)),
    })),
  );
  const tenth = RECIPIENTS * 0.1;
  // The fit takes the drain at work (10-95 %): not the readings taken while the API was still
  // accepting (request bodies in memory too), nor the ones after the last message (nothing in flight).
  const busy = samples.filter(
    (s) => s.phase === 'drain' && s.delivered >= tenth && s.delivered < RECIPIENTS && s.jobs > 0,
  );
  const at10 = samples.find((s) => s.phase.startsWith('drain') && s.delivered >= tenth);
  const lastBusy = busy[busy.length - 1];
  const start = samples[0]!;
  const drained = samples.find((s) => s.phase === 'drained');
  const idle = samples[samples.length - 1]!;
  const mb = (s: MemorySample) => `${s.heapUsedMb.toFixed(1)} MB (RSS ${s.rssMb.toFixed(0)} MB)`;
  console.log(
    `\nmailplane counted processed ${stats.processed}, delivered ${stats.delivered} of ${RECIPIENTS}; ${(RECIPIENTS / (drained ?? idle).elapsedS).toFixed(0)} recipients/s from first request to last delivery`,
  );
  console.log(
    `heap after GC: start ${mb(start)}; 10 % of the drain (${at10?.delivered ?? '-'}) ${at10 ? mb(at10) : '-'}; last reading at work (${lastBusy?.delivered ?? '-'}) ${lastBusy ? mb(lastBusy) : '-'}; 100 % drained ${drained ? mb(drained) : '-'}; idle ${mb(idle)}`,
  );
  console.log(
    `kept after the run (idle minus start): ${(idle.heapUsedMb - start.heapUsedMb).toFixed(1)} MB heap, ${(idle.rssMb - start.rssMb).toFixed(0)} MB RSS`,
  );
  const heapFit = fitPer100k(
    busy,
    (s) => s.delivered,
    (s) => s.heapUsedMb,
  );
  const rssFit = fitPer100k(
    busy,
    (s) => s.delivered,
    (s) => s.rssMb,
  );
  const acceptFit = fitPer100k(
    samples.filter((s) => s.phase === 'accept' && s.accepted >= tenth),
    (s) => s.accepted,
    (s) => s.heapUsedMb,
  );
  console.log(
    `slope of heap over the drain at work: ${heapFit.slope.toFixed(2)} ± ${(2 * heapFit.standardError).toFixed(2)} MB per 100,000 recipients (RSS ${rssFit.slope.toFixed(2)} ± ${(2 * rssFit.standardError).toFixed(2)}); over acceptance: ${acceptFit.slope.toFixed(2)} ± ${(2 * acceptFit.standardError).toFixed(2)}`,
  );
  console.log(flatnessVerdict(heapFit));
  for (const path of snapshots) console.log(`heap snapshot: ${path}`);
  if (stats.delivered < RECIPIENTS) process.exitCode = 1;
}

await main();
