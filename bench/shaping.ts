/**
 * Traffic shaping against a receiver that pushes back (issue 29's "done when"): 2,000 messages through
 * two IPs (127.0.0.2 and .3) to a Google-hosted domain whose MX allows each client IP 60 messages a
 * minute and 2 connections, and answers Gmail's `421-4.7.28` past that. Time runs 60 times faster
 * than the issue's (the receiver's window is one second, the rule "60 a minute" is 60 a second), so
 * the run takes seconds, not half an hour; the ratios are the same.
 *
 * Two cases, each on a fresh SQLite database:
 * - `rule at the limit`: a rule of the receiver's own limits (60 a window per IP, 2 connections);
 * - `rule at twice the limit`: the rule allows twice what the receiver takes: adaptive throttling
 *   must slow down on the `421`s and still deliver everything, with no retry spent;
 * Each reports the time against the ideal (2,000 / (2 IPs × 60 a window)), the receiver's counts
 * (refusals, most connections open at once per IP) and the retries the messages spent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openKyselyStore } from '../adapters/storage/kysely/index.js';
import { mxTransport } from '../adapters/transport/smtp/index.js';
import { silentLogger } from '../src/logging/logger.js';
import { contextOf } from '../src/instance-context.js';
import { createMailplane } from '../src/mailplane.js';
import type { ShapingRule } from '../src/shaping/rules.js';
import type { Day } from '../src/model/dates.js';
import type { StatsScope } from '../src/store/index.js';
import { startTestDnsServer } from '../test/support/dns-server.js';
import { startThrottlingMx } from '../test/support/throttling-mx.js';
import { benchSubAccount } from './lib/sender.js';

/** One row of the report. */
export interface ShapingBenchRow {
  case: string;
  messages: number;
  delivered: number;
  seconds: number;
  /** Seconds against the time the receiver's limits allow at best. */
  ratioToIdeal: number;
  refused421: number;
  maxOpenPerIp: number;
  /** Soft bounces recorded (retries spent): the aim is none. */
  retriesSpent: number;
}

const MESSAGES = Number(process.env.BENCH_SHAPING_MESSAGES ?? 2000);
const PER_WINDOW = 60;
const WINDOW_MS = 1000;
const IPS = ['127.0.0.2', '127.0.0.3'];

/** Runs the three cases. */
export async function benchShaping(): Promise<ShapingBenchRow[]> {
  const rule = (perSecond: number): ShapingRule[] => [
    { destination: 'provider:gmail', source: '*', messagesPerSecond: perSecond, maxConnections: 2 },
  ];
  return [
    await runCase('rule at the limit', rule(PER_WINDOW)),
    await runCase('rule at twice the limit', rule(2 * PER_WINDOW)),
  ];
}

async function runCase(name: string, rules: ShapingRule[]): Promise<ShapingBenchRow> {
  const dir = mkdtempSync(join(tmpdir(), 'mailplane-bench-shaping-'));
  const dns = await startTestDnsServer();
  const mx = await startThrottlingMx({ messagesPerMinute: PER_WINDOW, windowMs: WINDOW_MS, connectionsPerIp: 2 });
  dns.set('gw.example', 'MX', [{ exchange: 'aspmx.l.google.com', preference: 1 }]);
  dns.set('aspmx.l.google.com', 'A', ['127.0.0.1']);
  const store = await openKyselyStore({ url: `sqlite:${join(dir, 'bench.db')}` });
  const mailplane = createMailplane({
    store,
    secret: 'bench-secret-bench-secret-bench-secret',
    logger: silentLogger,
    dns: { servers: [{ host: dns.host, port: dns.port }], timeoutMs: 1000, retries: 0 },
    delivery: { mxPort: mx.port, busyRetryDelayMs: 200 },
    jobs: { pollIntervalMs: 20 },
    shaping: { rules, throttleWaitMs: 300, slowDownGapMs: 500, quietPeriodMs: 3000 },
    transport: (ctx) => mxTransport({ resolver: ctx.resolver, port: ctx.delivery.mxPort, ehloName: 'bench.test' }),
  });
  try {
    const { apiKey, account } = await mailplane.createAccount({ name: 'bench-account' });
    const accountHeaders = { 'content-type': 'application/json', 'x-account-apikey': apiKey };
    const call = async (method: string, path: string, headers: Record<string, string>, body: unknown) => {
      const response = await mailplane.handle({
        method,
        path,
        headers,
        query: new URLSearchParams(),
        rawBody: JSON.stringify(body),
      });
      if (response.status >= 300) throw new Error(`${path}: ${response.status} ${response.body}`);
      return JSON.parse(response.body);
    };
    for (const address of IPS)
      await call('PUT', '/account/ip/allocate', accountHeaders, { ips: [address], autoWarmupEnabled: false });
    await call('POST', '/account/ippool', accountHeaders, {
      name: 'Pair',
      routingStrategy: 0,
      routingMetaData: '{}',
      ips: IPS.map((publicIP) => ({ publicIP })),
    });
    const sender = await benchSubAccount(mailplane, apiKey, 'bench', 'bench.example.com');
    const scope = { accountId: account.id, subAccountId: sender.subAccountId };
    mailplane.start();
    const started = performance.now();
    for (let at = 0; at < MESSAGES; at += 100) {
      await call(
        'POST',
        '/subaccount/email',
        { 'content-type': 'application/json', 'x-subaccount-apikey': sender.apiKey },
        {
          from: { email: 'news@bench.example.com' },
          to: Array.from({ length: Math.min(100, MESSAGES - at) }, (_, i) => ({ email: `r${at + i}@gw.example` })),
          subject: 'Bench',
          textBody: 'Hello',
          ippool: 'Pair',
        },
      );
    }
    const stored = contextOf(mailplane).store;
    const deadline = performance.now() + 20 * (MESSAGES / (IPS.length * PER_WINDOW)) * WINDOW_MS;
    let stat = await dayStat(stored, scope);
    while (stat.delivered + stat.hardBounced + stat.smtpDropped < MESSAGES && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      stat = await dayStat(stored, scope);
    }
    const seconds = (performance.now() - started) / 1000;
    const ideal = (MESSAGES / (IPS.length * PER_WINDOW)) * (WINDOW_MS / 1000);
    const counts = IPS.map((ip) => mx.client(ip));
    return {
      case: name,
      messages: MESSAGES,
      delivered: stat.delivered,
      seconds: Math.round(seconds * 10) / 10,
      ratioToIdeal: Math.round((seconds / ideal) * 100) / 100,
      refused421: counts.reduce((sum, c) => sum + c.replies421, 0),
      maxOpenPerIp: Math.max(...counts.map((c) => c.maxOpen)),
      retriesSpent: stat.softBounced,
    };
  } finally {
    await mailplane.close();
    await store.close();
    await mx.close();
    await dns.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Today's counters of the sub-account (all mail). */
async function dayStat(store: ReturnType<typeof contextOf>['store'], scope: StatsScope) {
  const day = new Date().toISOString().slice(0, 10) as Day;
  const [row] = await store.stats.daily(scope, day, day);
  return {
    delivered: row?.counters.delivered ?? 0,
    softBounced: row?.counters.softBounced ?? 0,
    hardBounced: row?.counters.hardBounced ?? 0,
    smtpDropped: row?.counters.smtpDropped ?? 0,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.table(await benchShaping());
