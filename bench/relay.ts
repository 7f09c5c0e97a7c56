/**
 * Relay ingest: messages per second that mailplane's SMTP relay accepts (logged in, parsed, checked
 * and committed with their delivery job; delivery itself is off), next to a bare smtp-server that
 * takes any login and discards what it reads. The same nodemailer pooled client (10 connections,
 * connections reused, bench/lib/smtp-drive.ts) sends the same message to each (1 KB unless told);
 * each server runs in its own process.
 */
import { ONE_KB_BODY, CONNECTIONS, driveSmtp, type BenchBody } from './lib/smtp-drive.js';
import { startServer } from './lib/process.js';

/** One row of the report. */
export interface RelayBenchRow {
  case: string;
  bareSmtpServerPerSecond: number;
  mailplanePerSecond: number;
  ratio: number;
}

/** The relay's envelope: from its verified sending domain, to anyone. */
const relayAddress = (n: number) => ({ from: 'News <news@bench.example.com>', to: `r${n}@example.org` });

/** Runs the relay benchmark; `durationMs` per measured side, every message carrying `body`. */
export async function benchRelay(durationMs: number, body: BenchBody = ONE_KB_BODY): Promise<RelayBenchRow[]> {
  const bare = await startServer('bench/servers/relay-server.ts', { BENCH_RELAY_MODE: 'bare' });
  let barePerSecond: number;
  try {
    const port = Number(new URL(bare.baseUrl).port);
    const auth = { user: 'any', pass: 'any' };
    barePerSecond = (await driveSmtp({ port, auth, durationMs, body, address: relayAddress })).perSecond;
  } finally {
    await bare.stop();
  }
  const relay = await startServer('bench/servers/relay-server.ts', { BENCH_RELAY_MODE: 'mailplane' });
  try {
    const [, user, pass] = /credentials (\S+) (\S+)/.exec(relay.output())!;
    const port = Number(new URL(relay.baseUrl).port);
    const auth = { user: user!, pass: pass! };
    const mailplanePerSecond = (await driveSmtp({ port, auth, durationMs, body, address: relayAddress })).perSecond;
    return [
      {
        case: `${body.label}, 1 recipient, ${CONNECTIONS} connections`,
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
