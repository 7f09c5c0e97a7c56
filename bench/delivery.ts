/**
 * Delivery: messages per second from accepted to received by a loopback SMTP sink (smtp-server in
 * its own process), DKIM signing on, next to raw nodemailer pooled sends (DKIM on too) of the same
 * messages to the same sink, and the sink's ceiling (raw sockets writing a prebuilt message: no mail
 * system delivers faster to this sink here), without and with one RSA signature per message (no
 * DKIM-signing sender delivers faster here: the sink, the signing and the sender share 2 cores). mailplane runs on SQLite in this process with the MX transport.
 *
 * Run as a script with BENCH_DELIVERY_SINK=1 it is the sink: it prints `listening on
 * http://127.0.0.1:<port>` and then `count=<n>` every 50 ms.
 */
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { openKyselyStore } from '../adapters/storage/kysely/index.js';
import { mxTransport } from '../adapters/transport/smtp/index.js';
import { silentLogger } from '../src/logging/logger.js';
import { createMailplane } from '../src/mailplane.js';
import { startServer } from './lib/process.js';
import { sinkCeiling } from './lib/smtp-ceiling.js';
import { benchSender } from './lib/sender.js';

/** One row of the report. */
export interface DeliveryBenchRow {
  case: string;
  messages: number;
  nodemailerPerSecond: number;
  mailplanePerSecond: number;
  ratio: number;
  /** What the sink accepts from raw sockets writing a prebuilt message: the setup's ceiling. */
  sinkCeilingPerSecond: number;
  /** The same with one RSA-2048 signature per message: the ceiling of any DKIM-signing sender here. */
  signedCeilingPerSecond: number;
}

if (process.env.BENCH_DELIVERY_SINK) {
  let count = 0;
  const server = new SMTPServer({
    authOptional: true,
    hideSTARTTLS: true,
    disabledCommands: ['AUTH'],
    logger: false,
    // smtp-server resolves each client's address before its greeting (up to 1.5 s here, with no
    // DNS server): a sink that measures delivery greets at once.
    disableReverseLookup: true,
    size: 50 * 1024 * 1024,
    onData(stream, _session, callback) {
      stream.on('end', () => {
        count += 1;
        callback();
      });
      stream.resume();
    },
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    console.log(`listening on http://127.0.0.1:${port}`);
    setInterval(() => console.log(`count=${count}`), 50).unref();
  });
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

/** Connections to the sink, for mailplane (its MX transport's default), raw nodemailer and the ceilings alike. */
const CONNECTIONS = 10;

/**
 * A `size`-byte HTML body: personalised (a name and the unsubscribe link in the body), or, for a
 * bulk send, the same for every recipient (the unsubscribe link is then only in List-Unsubscribe).
 */
const html = (size: number, shared = false) =>
  `<p>Hello ${shared ? 'there' : '{{n}}'}</p>${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>\n'.repeat(Math.ceil(size / 62))}${shared ? '' : '<a href="{{unsubscribe}}">unsubscribe</a>'}`;

/** The sink's latest count (it prints one every 50 ms; only the end of its output is read). */
function lastCount(sink: Awaited<ReturnType<typeof startServer>>): number {
  const output = sink.output();
  const at = output.lastIndexOf('count=');
  return at === -1 ? 0 : Number.parseInt(output.slice(at + 6), 10);
}

/** Waits until the sink has received `atLeast` messages in all. */
export async function sinkCount(sink: Awaited<ReturnType<typeof startServer>>, atLeast: number): Promise<void> {
  while (lastCount(sink) < atLeast) await delay(10);
}

async function baseline(
  port: number,
  messages: number,
  size: number,
  shared: boolean,
  privateKey: string,
): Promise<number> {
  const transporter = nodemailer.createTransport({
    pool: true,
    host: '127.0.0.1',
    port,
    maxConnections: CONNECTIONS,
    maxMessages: Infinity,
    ignoreTLS: true,
    dkim: { domainName: 'bench.example.com', keySelector: 'mp1', privateKey },
  });
  const body = html(size, shared);
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < messages) {
      const n = next++;
      await transporter.sendMail({
        from: 'News <news@bench.example.com>',
        to: `r${n}@rcpt.example`,
        subject: `Hello ${n}`,
        html: body.replace('{{n}}', String(n)),
        text: shared ? 'Hello there' : `Hello ${n}`,
        envelope: { from: `b+${n}@rp.bench.example.com`, to: [`r${n}@rcpt.example`] },
      });
    }
  };
  await Promise.all(Array.from({ length: 50 }, worker));
  const seconds = (performance.now() - started) / 1000;
  transporter.close();
  return messages / seconds;
}

/** Brackets the measured window of {@link mailplaneRun} (bench/profile-delivery.ts profiles it). */
export interface MeasuredWindow {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * mailplane's half of a case: `messages` accepted first, then timed from the start of delivery to the
 * last one received by the sink at `port` (whose count is already `offset`).
 */
export async function mailplaneRun(
  port: number,
  sink: Awaited<ReturnType<typeof startServer>>,
  offset: number,
  messages: number,
  size: number,
  shared: boolean,
  window?: MeasuredWindow,
): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'mailplane-bench-delivery-'));
  const store = await openKyselyStore({ url: `sqlite:${join(dir, 'mailplane.db')}` });
  const staticMx = {
    resolveMx: async () => ({
      ok: true as const,
      name: 'rcpt.example',
      chain: [],
      records: [{ exchange: '127.0.0.1', preference: 0 }],
      ttl: 300,
    }),
    resolveA: async () => ({ ok: true as const, name: '127.0.0.1', chain: [], records: ['127.0.0.1'], ttl: 300 }),
  };
  const mailplane = createMailplane({
    store,
    secret: 'bench-secret-bench-secret-bench-secret-0123',
    logger: silentLogger,
    jobs: { concurrency: 8, lanes: { delivery: 8 }, pollIntervalMs: 50 },
    transport: () => mxTransport({ resolver: staticMx, port, ehloName: 'bench.local' }),
  });
  try {
    const sub = await benchSender(mailplane);
    const call = async (path: string, headers: Record<string, string>, body: unknown) =>
      JSON.parse(
        (
          await mailplane.handle({
            method: 'POST',
            path,
            headers: { 'content-type': 'application/json', ...headers },
            query: new URLSearchParams(),
            rawBody: JSON.stringify(body),
          })
        ).body,
      );
    // mailplane signs with the domain's own generated key.
    const body = html(size, shared);
    for (let at = 0; at < messages; at += 1000) {
      const to = Array.from({ length: Math.min(1000, messages - at) }, (_, i) => ({
        email: `r${at + i}@rcpt.example`,
        customFields: { n: String(at + i) },
      }));
      await call(
        '/subaccount/email',
        { 'x-subaccount-apikey': sub.apiKey },
        {
          from: { email: 'news@bench.example.com', name: 'News' },
          to,
          subject: 'Hello {{n}}',
          htmlBody: body,
          textBody: shared ? 'Hello there' : 'Hello {{n}}',
        },
      );
    }
    // Measured from the start of delivery of already accepted messages to the last one received.
    await window?.start();
    const started = performance.now();
    mailplane.start();
    await sinkCount(sink, offset + messages);
    const perSecond = messages / ((performance.now() - started) / 1000);
    await window?.stop();
    return perSecond;
  } finally {
    await mailplane.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the delivery benchmark for 1 KB and 100 KB personalised messages and 100 KB bulk messages. */
export async function benchDelivery(
  messages = Number(process.env.BENCH_DELIVERY_MESSAGES ?? 5000),
): Promise<DeliveryBenchRow[]> {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const sink = await startServer('bench/delivery.ts', { BENCH_DELIVERY_SINK: '1', BENCH_DELIVERY_ONLY: '' });
  const port = Number(new URL(sink.baseUrl).port);
  const rows: DeliveryBenchRow[] = [];
  let sent = 0;
  try {
    // BENCH_DELIVERY_CASES (comma-separated KB sizes, `b` suffix: bulk body shared by all
    // recipients) and BENCH_DELIVERY_BASELINE=0 narrow a run for profiling.
    const cases = (process.env.BENCH_DELIVERY_CASES ?? '1,100,100b')
      .split(',')
      .map((c) => ({ size: Number.parseInt(c, 10) * 1024, shared: c.endsWith('b') }));
    const withBaseline = process.env.BENCH_DELIVERY_BASELINE !== '0';
    const ceilings = new Map<number, { raw: number; signed: number }>();
    for (const { size, shared } of cases) {
      if (!ceilings.has(size)) {
        const raw = await sinkCeiling(port, messages, size, CONNECTIONS);
        const signed = await sinkCeiling(port, messages, size, CONNECTIONS, createPrivateKey(privateKey));
        ceilings.set(size, { raw, signed });
        sent += 2 * messages;
      }
      const nodemailerPerSecond = withBaseline ? await baseline(port, messages, size, shared, privateKey) : Number.NaN;
      if (withBaseline) sent += messages;
      await sinkCount(sink, sent);
      const mailplanePerSecond = await mailplaneRun(port, sink, sent, messages, size, shared);
      sent += messages;
      rows.push({
        case: `${size / 1024} KB messages${shared ? ', bulk (body shared)' : ', personalised'}, DKIM on`,
        messages,
        nodemailerPerSecond: Math.round(nodemailerPerSecond),
        mailplanePerSecond: Math.round(mailplanePerSecond),
        ratio: Number((mailplanePerSecond / nodemailerPerSecond).toFixed(2)),
        sinkCeilingPerSecond: Math.round(ceilings.get(size)!.raw),
        signedCeilingPerSecond: Math.round(ceilings.get(size)!.signed),
      });
    }
  } finally {
    await sink.stop();
  }
  return rows;
}

// The sink child inherits the environment: only the parent runs the benchmark.
if (process.env.BENCH_DELIVERY_ONLY && !process.env.BENCH_DELIVERY_SINK) {
  console.table(await benchDelivery());
  process.exit(0);
}
