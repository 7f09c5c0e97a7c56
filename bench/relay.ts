/**
 * Relay ingest: messages per second that mailplane's SMTP relay accepts (logged in, parsed, checked
 * and committed with their delivery job; delivery itself is off), next to a bare smtp-server that
 * takes any login and discards what it reads. The same nodemailer pooled client (10 connections,
 * connections reused) sends the same 1 KB message to each; each server runs in its own process.
 */
import nodemailer from 'nodemailer';
import { startServer } from './lib/process.js';

/** One row of the report. */
export interface RelayBenchRow {
  case: string;
  bareSmtpServerPerSecond: number;
  mailplanePerSecond: number;
  ratio: number;
}

const CONNECTIONS = 10;

/** Sends for `durationMs` with `inFlight` messages outstanding; answers messages per second. */
async function drive(port: number, auth: { user: string; pass: string }, durationMs: number): Promise<number> {
  const transport = nodemailer.createTransport({
    pool: true,
    host: '127.0.0.1',
    port,
    ignoreTLS: true,
    auth,
    maxConnections: CONNECTIONS,
    maxMessages: Infinity,
  });
  const html = `<p>${'Hello there, this is the benchmark message. '.repeat(20)}</p>`;
  const send = (n: number) =>
    transport.sendMail({
      from: 'News <news@bench.example.com>',
      to: `r${n}@example.org`,
      subject: `Hello ${n}`,
      html,
      text: 'Hello',
      headers: { 'X-Campaign': 'bench' },
    });
  let next = 0;
  // Warm-up: connections, JIT, the first page of the store.
  await Promise.all(Array.from({ length: 200 }, () => send(next++)));
  let done = 0;
  const end = performance.now() + durationMs;
  const started = performance.now();
  const worker = async () => {
    while (performance.now() < end) {
      await send(next++);
      done += 1;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS * 2 }, worker));
  const seconds = (performance.now() - started) / 1000;
  transport.close();
  return done / seconds;
}

/** Runs the relay benchmark; `durationMs` per measured side. */
export async function benchRelay(durationMs: number): Promise<RelayBenchRow[]> {
  const bare = await startServer('bench/servers/relay-server.ts', { BENCH_RELAY_MODE: 'bare' });
  let barePerSecond: number;
  try {
    barePerSecond = await drive(Number(new URL(bare.baseUrl).port), { user: 'any', pass: 'any' }, durationMs);
  } finally {
    await bare.stop();
  }
  const relay = await startServer('bench/servers/relay-server.ts', { BENCH_RELAY_MODE: 'mailplane' });
  try {
    const [, user, pass] = /credentials (\S+) (\S+)/.exec(relay.output())!;
    const mailplanePerSecond = await drive(
      Number(new URL(relay.baseUrl).port),
      { user: user!, pass: pass! },
      durationMs,
    );
    return [
      {
        case: '1 KB message, 1 recipient, 10 connections',
        bareSmtpServerPerSecond: Math.round(barePerSecond),
        mailplanePerSecond: Math.round(mailplanePerSecond),
        ratio: Number((mailplanePerSecond / barePerSecond).toFixed(2)),
      },
    ];
  } finally {
    await relay.stop();
  }
}

if (process.env.BENCH_RELAY_ONLY) {
  console.table(await benchRelay(Number(process.env.BENCH_SECONDS ?? 10) * 1000));
  process.exit(0);
}
