/**
 * The SMTP benchmarks' client (bench/relay.ts, bench/inbound.ts): nodemailer with pooled
 * connections, reused, sending the same message body to whichever server is measured, so that the
 * servers' figures differ by the server only.
 */
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';

/** What every message of a run carries, whatever server it goes to. */
export interface BenchBody {
  /** How the report names it, e.g. "1 KB message". */
  label: string;
  html: string;
  text: string;
  attachments?: Mail.Attachment[];
}

/** The relay bench's message since it was written: about 1 KB of HTML, no attachment. */
export const ONE_KB_BODY: BenchBody = {
  label: '1 KB message',
  html: `<p>${'Hello there, this is the benchmark message. '.repeat(20)}</p>`,
  text: 'Hello',
};

/**
 * About 10 KB on the wire: an HTML and a text part and a 1 KB CSV attachment (the kind of message a
 * support address receives).
 */
export const TEN_KB_WITH_ATTACHMENT_BODY: BenchBody = {
  label: '10 KB message with a 1 KB attachment',
  html: `<p>${'Hello there, this is the benchmark message. '.repeat(140)}</p>`,
  text: 'Hello there, this is the benchmark message. '.repeat(30),
  attachments: [
    {
      filename: 'order.csv',
      contentType: 'text/csv',
      content: 'sku,quantity,price\n' + 'AB-1234,2,19.90\n'.repeat(63),
    },
  ],
};

/** Where and how {@link driveSmtp} sends. */
export interface DriveOptions {
  port: number;
  /** A login (the relay, the bare server); none for an MX (the inbound listener). */
  auth?: { user: string; pass: string };
  durationMs: number;
  body: BenchBody;
  /** The envelope of message `n`. */
  address(n: number): { from: string; to: string };
  /** Called when the measured window starts (after the warm-up). */
  onWindowStart?(): void;
}

/** What {@link driveSmtp} measured. */
export interface DriveResult {
  /** Messages answered 250 a second in the window. */
  perSecond: number;
  /** Messages answered 250 in all, the warm-up's included. */
  accepted: number;
}

/** Pooled connections to the server; twice as many messages are outstanding. */
export const CONNECTIONS = 10;

/** Sends for `durationMs` after a warm-up; answers messages per second. */
export async function driveSmtp(options: DriveOptions): Promise<DriveResult> {
  const transport = nodemailer.createTransport({
    pool: true,
    host: '127.0.0.1',
    port: options.port,
    ignoreTLS: true,
    ...(options.auth && { auth: options.auth }),
    maxConnections: CONNECTIONS,
    maxMessages: Infinity,
  });
  const { html, text, attachments } = options.body;
  const send = (n: number) =>
    transport.sendMail({
      ...options.address(n),
      subject: `Hello ${n}`,
      html,
      text,
      ...(attachments && { attachments }),
      headers: { 'X-Campaign': 'bench' },
    });
  let next = 0;
  // Warm-up: connections, JIT, the first page of the store.
  await Promise.all(Array.from({ length: 200 }, () => send(next++)));
  let done = 0;
  options.onWindowStart?.();
  const end = performance.now() + options.durationMs;
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
  return { perSecond: done / seconds, accepted: 200 + done };
}
