import { spawn, type ChildProcess } from 'node:child_process';
import { contextOf } from '../../src/instance-context.js';
import { once } from 'node:events';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMailplane, silentLogger, type Mailplane } from 'mailplane';
import { openKyselyStore } from 'mailplane/storage/kysely';
import { TEST_SECRET } from '../support/api.js';
import { freshDatabaseUrl, pgUrl } from '../support/databases.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';
import { programFile } from '../support/programs.js';

/**
 * Accepts `count` messages to rcpt.test through the API of an instance that runs no jobs, and
 * answers their ids.
 */
async function acceptMessages(mailplane: Mailplane, count: number): Promise<string[]> {
  const ctx = contextOf(mailplane);
  const { apiKey } = await mailplane.createAccount({ name: 'bulk' });
  const call = async (method: string, path: string, headers: Record<string, string>, body: unknown) => {
    const response = await mailplane.handle({
      method,
      path,
      headers: { 'content-type': 'application/json', ...headers },
      query: new URLSearchParams(),
      rawBody: JSON.stringify(body),
    });
    return JSON.parse(response.body);
  };
  const sub = await call('POST', '/account/subaccount', { 'x-account-apikey': apiKey }, { name: 'bulk' });
  const domain = await call(
    'POST',
    '/subaccount/domain',
    { 'x-subaccount-apikey': sub.apiKey },
    { name: 'sender.test' },
  );
  await ctx.store.domains.updateVerification(sub.id, domain.id, { dkimVerified: true, verified: true, updated: 1n });
  const ids: string[] = [];
  for (let at = 0; at < count; at += 1000) {
    const to = Array.from({ length: Math.min(1000, count - at) }, (_, i) => ({
      email: `r${at + i}@rcpt.test`,
      customFields: { n: String(at + i) },
    }));
    const entries = await call(
      'POST',
      '/subaccount/email',
      { 'x-subaccount-apikey': sub.apiKey },
      { from: { email: 'news@sender.test' }, to, subject: 'Bulk {{n}}', textBody: 'Hello {{n}}' },
    );
    ids.push(...entries.map((e: { messageId: string }) => e.messageId));
  }
  return ids;
}

/**
 * How many messages the two workers drain: 1,000 in `npm test` (3,000 took 40 s of a loaded run);
 * `npm run soak` drains 10,000 (`MAILPLANE_SOAK_MESSAGES` sets it).
 */
const DRAINED = Number(process.env.MAILPLANE_SOAK_MESSAGES ?? 1_000);

describe.skipIf(!pgUrl)('delivery by several worker processes on one PostgreSQL', () => {
  let dns: TestDnsServer;
  let sink: SmtpSink;
  beforeAll(async () => {
    dns = await startTestDnsServer();
    dns.set('rcpt.test', 'MX', [{ exchange: 'mx.rcpt.test', preference: 10 }]);
    dns.set('mx.rcpt.test', 'A', ['127.0.0.1']);
    sink = await startSmtpSink();
  });
  afterAll(async () => {
    await sink?.close();
    await dns?.close();
  });

  const startWorker = (url: string, name: string) => {
    // node itself (not a wrapper), so that a signal reaches the worker, not a parent of it.
    const child = spawn(process.execPath, [programFile('delivery-worker')], {
      env: {
        ...process.env,
        MAILPLANE_DELIVERY_DB_URL: url,
        MAILPLANE_DELIVERY_DNS: dns.address,
        MAILPLANE_MX_PORT: String(sink.port),
        MAILPLANE_WORKER: name,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    return { child, ready: new Promise<void>((resolve) => child.stdout!.once('data', () => resolve())) };
  };
  const stop = async (child: ChildProcess) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await once(child, 'exit');
  };

  async function run(count: number, crash: boolean) {
    const { url, drop } = await freshDatabaseUrl('postgres');
    const store = await openKyselyStore({ url });
    const api = createMailplane({ store, secret: TEST_SECRET, logger: silentLogger });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    sink.received.length = 0;
    const workers: ChildProcess[] = [];
    try {
      const ids = await acceptMessages(api, count);
      const a = startWorker(url, 'worker-a');
      const b = startWorker(url, 'worker-b');
      workers.push(a.child, b.child);
      await Promise.all([a.ready, b.ready]);
      if (crash) {
        await vi.waitFor(() => expect(sink.received.length).toBeGreaterThan(count / 4), {
          timeout: 120_000,
          interval: 20,
        });
        a.child.kill('SIGKILL'); // mid-send: no chance to record, release or finish anything
        await once(a.child, 'exit');
        const c = startWorker(url, 'worker-c');
        workers.push(c.child);
        await c.ready;
      }
      await vi.waitFor(
        async () => {
          const open = await client.query(
            `SELECT count(*)::int AS n FROM messages WHERE status IN ('queued', 'deferred')`,
          );
          expect(open.rows[0].n).toBe(0);
        },
        { timeout: 170_000, interval: 200 },
      );
      const statuses = await client.query(`SELECT status, count(*)::int AS n FROM messages GROUP BY status`);
      expect(statuses.rows).toEqual([{ status: 'delivered', n: count }]);
      // Exactly one terminal event and one count per message.
      const delivered = await client.query(
        `SELECT count(*)::int AS n, count(DISTINCT message_id)::int AS d FROM events WHERE type = 2`,
      );
      expect(delivered.rows[0]).toEqual({ n: count, d: count });
      const counted = await store.stats.total(
        { accountId: (await store.messages.getForDelivery(ids[0]!))!.batch.accountId },
        '2000-01-01',
        '2100-01-01',
      );
      expect(counted.delivered).toBe(count);
      // The sink got every message; it tells duplicates by Message-ID.
      const received = sink.received.map((m) => /^Message-ID: <([^@]+)@/im.exec(m.raw.toString('latin1'))![1]!);
      expect(new Set(received)).toEqual(new Set(ids));
      return received.length - new Set(received).size;
    } finally {
      for (const w of workers) await stop(w);
      await client.end();
      await api.close();
      await drop();
    }
  }

  it(
    `two workers drain ${DRAINED.toLocaleString('en')} messages with no duplicate and none missing`,
    { timeout: 300_000 },
    async () => {
      expect(await run(DRAINED, false)).toBe(0);
    },
  );

  it(
    'kill -9 of a worker mid-send, then a restart: every message ends delivered exactly once in the records',
    { timeout: 300_000 },
    async () => {
      const duplicates = await run(3_000, true);
      // At-least-once: only what the killed worker had in flight (sent, not yet recorded) may
      // arrive twice: at most 4 jobs x 50 concurrent sends.
      expect(duplicates).toBeLessThanOrEqual(200);
    },
  );
});
