/**
 * Send acceptance: emails accepted per second through the Express example and through the bare
 * `mailplane/node` bridge on SQLite (1 and 100 recipients per request), next to a bare Express
 * endpoint that parses the same JSON and answers the same shape. Each server runs in its own process; the load generator runs in this one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openKyselyStore } from '../adapters/storage/kysely/index.js';
import { runLoad } from './lib/load.js';
import { startServer } from './lib/process.js';

/** One row of the report. */
export interface SendBenchRow {
  case: string;
  /** The bridge mailplane was served through (the baseline is bare Express either way). */
  server: string;
  baselineRequestsPerSecond: number;
  mailplaneRequestsPerSecond: number;
  mailplaneEmailsPerSecond: number;
  ratio: number;
}

/** The JSON body of the `i`-th benchmark send to `recipients` recipients (also bench/accept-indexes.ts). */
export const sendBody = (recipients: number) => (i: number) =>
  JSON.stringify({
    from: { email: 'news@bench.example.com', name: 'Bench' },
    to: Array.from({ length: recipients }, (_, r) => ({
      email: `r${i}-${r}@example.org`,
      name: 'Reader',
      customFields: { n: String(r) },
    })),
    subject: 'Hello {{n}}',
    htmlBody: '<p>Hello {{n}}</p><a href="{{unsubscribe}}">unsubscribe</a>',
    textBody: 'Hello {{n}}',
    groups: ['bench'],
  });

/** `BENCH_SEND_RECIPIENTS=1` (or 100) runs that case alone: one case per server process, for profiling. */
const CASES = [
  { name: '1 recipient per request', recipients: 1, concurrency: 16 },
  { name: '100 recipients per request', recipients: 100, concurrency: 4 },
].filter(
  (c) => process.env.BENCH_SEND_RECIPIENTS === undefined || String(c.recipients) === process.env.BENCH_SEND_RECIPIENTS,
);

const SERVERS = [
  { name: 'express', script: 'examples/express/server.ts' },
  { name: 'node:http', script: 'bench/servers/node-http.ts' },
];

/** Runs the send benchmark; `durationMs` per measured case. */
export async function benchSend(durationMs: number): Promise<SendBenchRow[]> {
  const baseline = new Map<string, number>();
  const bare = await startServer('bench/servers/bare-express.ts', {});
  try {
    for (const c of CASES) {
      const result = await runLoad({
        url: `${bare.baseUrl}/subaccount/email`,
        body: sendBody(c.recipients),
        concurrency: c.concurrency,
        durationMs,
      });
      baseline.set(c.name, result.perSecond);
    }
  } finally {
    await bare.stop();
  }
  const rows: SendBenchRow[] = [];
  for (const server of SERVERS) {
    for (const measured of await measureMailplane(server.script, durationMs)) {
      const base = baseline.get(measured.case)!;
      rows.push({
        case: measured.case,
        server: server.name,
        baselineRequestsPerSecond: Math.round(base),
        mailplaneRequestsPerSecond: Math.round(measured.perSecond),
        mailplaneEmailsPerSecond: Math.round(measured.perSecond * measured.recipients),
        ratio: Number((measured.perSecond / base).toFixed(3)),
      });
    }
  }
  return rows;
}

/** Requests per second of each case through one server script, on a fresh SQLite database. */
async function measureMailplane(script: string, durationMs: number) {
  const dataDir = mkdtempSync(join(tmpdir(), 'mailplane-bench-'));
  const databaseUrl = `sqlite:${join(dataDir, 'mailplane.db')}`;
  const server = await startServer(script, {
    PORT: '0',
    MAILPLANE_DATA_DIR: dataDir,
    MAILPLANE_DATABASE_URL: databaseUrl,
    MAILPLANE_WORKERS: 'off',
    // 100-recipient requests reach tens of thousands of recipients a second, past the default
    // 600,000 a minute per key: the limiter still runs (its cost is in the figure) but never refuses.
    MAILPLANE_RATE_LIMIT_RECIPIENTS_PER_MINUTE: '1000000000',
  });
  const results: Array<{ case: string; recipients: number; perSecond: number }> = [];
  try {
    const accountKey = /account API key \(shown once, keep it\): (\S+)/.exec(server.output())![1]!;
    const call = async (method: string, path: string, headers: Record<string, string>, payload: unknown) => {
      const response = await fetch(`${server.baseUrl}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(payload),
      });
      return (await response.json()) as { id: number; apiKey: string };
    };
    const sub = await call('POST', '/account/subaccount', { 'x-account-apikey': accountKey }, { name: 'bench' });
    const domain = await call(
      'POST',
      '/subaccount/domain',
      { 'x-subaccount-apikey': sub.apiKey },
      { name: 'bench.example.com' },
    );
    // Stands in for publishing DNS: mark the domain verified in the same SQLite file (WAL allows it).
    const store = await openKyselyStore({ url: databaseUrl });
    await store.domains.updateVerification(sub.id, domain.id, { dkimVerified: true, verified: true, updated: 1n });
    await store.close();

    for (const c of CASES) {
      const result = await runLoad({
        url: `${server.baseUrl}/subaccount/email`,
        headers: { 'x-subaccount-apikey': sub.apiKey },
        body: sendBody(c.recipients),
        concurrency: c.concurrency,
        durationMs,
      });
      if (result.errors > 0) throw new Error(`${result.errors} failed requests in "${c.name}" (${script})`);
      results.push({ case: c.name, recipients: c.recipients, perSecond: result.perSecond });
    }
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return results;
}
