/**
 * Fair queues and priority (issue 29, docs/shaping.md): sub-account A has a bulk backlog queued
 * (`BENCH_FAIR_RECIPIENTS`, default 200,000, accepted through the API in sends of 1,000 while the
 * workers are stopped); the workers start, and sub-account B, of the same account, sends one
 * transactional message a second for `BENCH_FAIR_SECONDS` (default 60) to the same MX. Measured:
 * B's accepted-to-delivered latency (from the API's answer to the sink's end of DATA, on the sink's
 * clock), the part of it before the transport had the message (the job queue's), and A's messages
 * per second over the same window. B's messages not delivered within `BENCH_FAIR_GIVE_UP_MS`
 * (default 120 s) of its last send count as the longest.
 *
 * mailplane runs in this process with the library's defaults (job lanes, page size, delivery
 * concurrency, polling), the MX transport pointed at the loopback sink of bench/servers/memory-sink.ts
 * (its own process), on a SQLite file, or on a fresh PostgreSQL database when `BENCH_FAIR_PG_URL`
 * names a server. `BENCH_FAIR_UNCLASSED=1` leaves out the sends' `stream` field, for the code before
 * classes existed (its sends then take the class the recipient count gives, the same ones here).
 * `BENCH_FAIR_SLOTS` (the delivery lane's slots), `BENCH_FAIR_RESERVED` (of them, the ones kept for
 * transactional jobs), `BENCH_FAIR_CONCURRENCY` (messages in flight per page job) and
 * `BENCH_FAIR_POLL_MS` (the runner's poll interval) override the defaults, to see what moves B's
 * figure.
 *
 * `npm run bench -- fair-queues`, or `npx tsx bench/fair-queues.ts`. The aim: B's p99 under 2 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { openKyselyStore } from '../adapters/storage/kysely/index.js';
import { mxTransport } from '../adapters/transport/smtp/index.js';
import { silentLogger } from '../src/logging/logger.js';
import { createMailplane, type Mailplane } from '../src/mailplane.js';
import { startTestDnsServer } from '../test/support/dns-server.js';
import { percentile } from './lib/median.js';
import { freshDatabase } from './lib/postgres.js';
import { startServer, type ServerProcess } from './lib/process.js';
import { benchSubAccount } from './lib/sender.js';

/** One row of the report. */
export interface FairQueuesBenchRow {
  store: string;
  /** The settings that differ from the library's defaults (`BENCH_FAIR_SLOTS` and the rest). */
  settings: string;
  aRecipients: number;
  /** Seconds the API took to accept A's backlog (workers stopped). */
  aAcceptSeconds: number;
  /** A's messages received by the sink per second while B was sending. */
  aPerSecond: number;
  bSent: number;
  bDelivered: number;
  /** B's accepted-to-delivered milliseconds; a message not delivered counts as the longest. */
  bP50Ms: number | string;
  bP95Ms: number | string;
  bP99Ms: number | string;
  bMaxMs: number | string;
  /** Of B's figure: accepted to handed to the transport (the job queue's part: claims, job slots). */
  bQueueP50Ms: number | string;
  bQueueP99Ms: number | string;
  /** B's send call itself (the API's answer), p99, under the load. */
  bAcceptP99Ms: number;
}

/** Recipients per send: the API's most. */
const SEND_SIZE = 1_000;
/** How long B's last messages are waited for after its last send. */
const GIVE_UP_MS = Number(process.env.BENCH_FAIR_GIVE_UP_MS ?? 120_000);
const B_PREFIX = 'b-';
const RCPT_DOMAIN = 'rcpt.example';
const named = process.env.BENCH_FAIR_UNCLASSED !== '1';
const slots = process.env.BENCH_FAIR_SLOTS;
const reserved = process.env.BENCH_FAIR_RESERVED;
const concurrency = process.env.BENCH_FAIR_CONCURRENCY;
const pollMs = process.env.BENCH_FAIR_POLL_MS;
const settings =
  [
    slots && `${slots} delivery slots`,
    reserved && `${reserved} transactional`,
    concurrency && `${concurrency} per page`,
    pollMs && `poll ${pollMs} ms`,
  ]
    .filter(Boolean)
    .join(', ') || 'defaults';

interface SinkState {
  smtpPort: number;
  count: number;
  arrivals: Record<string, number>;
}

const sinkState = async (sink: ServerProcess): Promise<SinkState> =>
  (await (await fetch(sink.baseUrl)).json()) as SinkState;

/** POSTs `body` to `path` through the router as the sub-account `apiKey`; throws on a refusal. */
async function send(mailplane: Mailplane, apiKey: string, body: unknown): Promise<void> {
  const response = await mailplane.handle({
    method: 'POST',
    path: '/subaccount/email',
    headers: { 'content-type': 'application/json', 'x-subaccount-apikey': apiKey },
    query: new URLSearchParams(),
    rawBody: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`send: ${response.status} ${response.body}`);
}

/** The store the case runs on, and how to remove it. */
async function openStore(): Promise<{ label: string; url: string; drop: () => Promise<void> }> {
  const server = process.env.BENCH_FAIR_PG_URL;
  if (server) return { label: 'postgres', ...(await freshDatabase(server)) };
  const dir = mkdtempSync(join(tmpdir(), 'mailplane-bench-fair-'));
  return {
    label: 'sqlite',
    url: `sqlite:${join(dir, 'mailplane.db')}`,
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Runs the case once: A's backlog accepted, then B's sends timed while the workers drain it. */
export async function benchFairQueues(
  recipients = Number(process.env.BENCH_FAIR_RECIPIENTS ?? 200_000),
  seconds = Number(process.env.BENCH_FAIR_SECONDS ?? 60),
): Promise<FairQueuesBenchRow[]> {
  const sink = await startServer('bench/servers/memory-sink.ts', { SINK_TIMED_PREFIX: B_PREFIX });
  const database = await openStore();
  // The domains are verified through DNS, so their scheduled re-check a minute in keeps them verified.
  const dns = await startTestDnsServer();
  // When each of B's messages was handed to the transport: splits B's figure into the queue's part
  // (accepted to handed over: claims and job slots) and the transport's (its pool's line, SMTP).
  const handedAt = new Map<string, number>();
  const { smtpPort } = await sinkState(sink);
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
  // Library defaults for the runner and delivery: the figure an embedding service gets untuned.
  const mailplane = createMailplane({
    store: await openKyselyStore({ url: database.url, logger: silentLogger }),
    secret: 'bench-secret-bench-secret-bench-secret-0123',
    logger: silentLogger,
    dns: { servers: [{ host: dns.host, port: dns.port }], rdapBaseUrl: null },
    // A's backlog goes in faster than the default 600,000 recipients a minute per key.
    rateLimits: { recipientsPerMinute: 1_000_000_000 },
    jobs: {
      ...(slots && { lanes: { delivery: Number(slots) } }),
      ...(reserved && { transactionalSlots: { delivery: Number(reserved) } }),
      ...(pollMs && { pollIntervalMs: Number(pollMs) }),
    },
    ...(concurrency && { delivery: { concurrency: Number(concurrency) } }),
    transport: () => {
      const inner = mxTransport({ resolver: staticMx, port: smtpPort, ehloName: 'bench.local' });
      return {
        close: () => inner.close(),
        send: (message, route, options) => {
          for (const to of message.envelope.to) if (to.startsWith(B_PREFIX)) handedAt.set(to, Date.now());
          return inner.send(message, route, options);
        },
      };
    },
  });
  try {
    const { apiKey } = await mailplane.createAccount({ name: 'bench' });
    const a = await benchSubAccount(mailplane, apiKey, 'campaigns', 'campaigns.example.com', dns);
    const b = await benchSubAccount(mailplane, apiKey, 'alerts', 'alerts.example.com', dns);

    const acceptStarted = performance.now();
    const body = `<p>Hello there</p>${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>\n'.repeat(16)}`;
    for (let at = 0; at < recipients; at += SEND_SIZE) {
      const to = Array.from({ length: Math.min(SEND_SIZE, recipients - at) }, (_, i) => ({
        email: `a-${at + i}@${RCPT_DOMAIN}`,
      }));
      await send(mailplane, a.apiKey, {
        from: { email: 'news@campaigns.example.com', name: 'News' },
        to,
        subject: 'This week',
        htmlBody: body,
        textBody: 'Hello there',
        ...(named && { stream: 'bulk' }),
      });
    }
    const aAcceptSeconds = (performance.now() - acceptStarted) / 1000;

    const countAtStart = (await sinkState(sink)).count;
    const windowStarted = performance.now();
    mailplane.start();
    // B sends on a fixed schedule, one a second, whatever an earlier send still waits on.
    const acceptedAt = new Map<string, number>();
    const acceptMs: number[] = [];
    const sends: Promise<void>[] = [];
    for (let i = 0; i < seconds; i++) {
      await delay(Math.max(0, windowStarted + i * 1000 - performance.now()));
      const address = `${B_PREFIX}${i}@${RCPT_DOMAIN}`;
      const started = performance.now();
      sends.push(
        send(mailplane, b.apiKey, {
          from: { email: 'alerts@alerts.example.com' },
          to: [{ email: address }],
          subject: 'Your sign-in code',
          textBody: `Your code is ${100000 + i}`,
          ...(named && { stream: 'transactional' }),
        }).then(() => {
          acceptedAt.set(address, Date.now());
          acceptMs.push(performance.now() - started);
        }),
      );
    }
    await Promise.all(sends);
    await delay(Math.max(0, windowStarted + seconds * 1000 - performance.now()));
    const atWindowEnd = await sinkState(sink);
    const windowSeconds = (performance.now() - windowStarted) / 1000;
    const bInWindow = Object.keys(atWindowEnd.arrivals).length;
    const aPerSecond = (atWindowEnd.count - countAtStart - bInWindow) / windowSeconds;

    let arrivals = atWindowEnd.arrivals;
    const givingUpAt = performance.now() + GIVE_UP_MS;
    while (Object.keys(arrivals).length < seconds && performance.now() < givingUpAt) {
      await delay(200);
      arrivals = (await sinkState(sink)).arrivals;
    }
    // A message not delivered counts as the longest; a figure that is one reads "not within".
    const since = (until: Record<string, number> | Map<string, number>) => {
      const at = (address: string) => (until instanceof Map ? until.get(address) : until[address]);
      return [...acceptedAt]
        .map(([address, accepted]) => Math.max(0, (at(address) ?? Number.POSITIVE_INFINITY) - accepted))
        .sort((x, y) => x - y);
    };
    const shown = (ms: number) => (Number.isFinite(ms) ? Math.round(ms) : `not within ${GIVE_UP_MS / 1000} s`);
    const latencies = since(arrivals);
    const queued = since(handedAt);
    acceptMs.sort((x, y) => x - y);
    return [
      {
        store: database.label,
        settings,
        aRecipients: recipients,
        aAcceptSeconds: Number(aAcceptSeconds.toFixed(1)),
        aPerSecond: Math.round(aPerSecond),
        bSent: seconds,
        bDelivered: latencies.filter(Number.isFinite).length,
        bP50Ms: shown(percentile(latencies, 50)),
        bP95Ms: shown(percentile(latencies, 95)),
        bP99Ms: shown(percentile(latencies, 99)),
        bMaxMs: shown(latencies.at(-1)!),
        bQueueP50Ms: shown(percentile(queued, 50)),
        bQueueP99Ms: shown(percentile(queued, 99)),
        bAcceptP99Ms: Math.round(percentile(acceptMs, 99)),
      },
    ];
  } finally {
    await mailplane.close();
    await database.drop();
    await dns.close();
    await sink.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.table(await benchFairQueues());
  process.exit(0);
}
