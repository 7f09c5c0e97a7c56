/**
 * Inbound intake: messages a second that mailplane's inbound listener (the MX) takes on SQLite
 * (read, authenticated with SPF and DMARC through the instance's resolver, parsed and committed per
 * recipient before the 250), with a `store` route and with a `webhook` route posting each message to
 * a loopback receiver that answers 200 at once; beside the relay's intake (bench/relay.ts, its own
 * function) and the bare smtp-server that discards, all four measured in the same run with the same
 * client (bench/lib/smtp-drive.ts) sending the same 10 KB message with an attachment. Each server
 * runs in its own process; the webhook receiver runs in this one, beside the client.
 */
import { benchRelay } from './relay.js';
import { startServer } from './lib/process.js';
import { TEN_KB_WITH_ATTACHMENT_BODY, driveSmtp, type DriveResult } from './lib/smtp-drive.js';
import { startWebhookReceiver, type WebhookReceiver } from '../test/support/webhook-receiver.js';

/** One row of the report. */
export interface InboundBenchRow {
  case: string;
  /** Messages answered 250 (so committed) a second. */
  msgsPerSecond: number;
  ratio: number;
  /** For the webhook case: posts the receiver got a second in the same window. */
  postedPerSecond?: number;
  /** For the webhook case: seconds after the window until every accepted message was posted, or what was left. */
  drainSeconds?: number | string;
}

/** Mail from the internet to the receiving domain's catch-all route. */
const inboundAddress = (n: number) => ({ from: 'Alice <alice@remote.test>', to: `r${n}@bench.example.com` });

/** Longest wait for the webhook backlog after the window before the bench reports what is left. */
const DRAIN_LIMIT_MS = 120_000;

/** Waits until `hook` has had `count` posts; answers the seconds waited, or `undefined` past the limit. */
async function drained(hook: WebhookReceiver, count: number): Promise<number | undefined> {
  const started = performance.now();
  while (hook.received.length < count) {
    if (performance.now() - started > DRAIN_LIMIT_MS) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return (performance.now() - started) / 1000;
}

/** What one inbound case measured; the posts for the webhook case only. */
interface InboundMeasure extends DriveResult {
  postedPerSecond?: number;
  drainSeconds?: number | string;
}

/** Measures the inbound listener with `action` as the route's; `hook` receives the webhook posts. */
async function measureInbound(
  action: 'store' | 'webhook',
  durationMs: number,
  hook: WebhookReceiver,
): Promise<InboundMeasure> {
  const server = await startServer('bench/servers/inbound-server.ts', {
    BENCH_INBOUND_ACTION: action,
    BENCH_INBOUND_WEBHOOK_URL: hook.url,
  });
  try {
    let postedAtStart = 0;
    let windowStart = 0;
    const result = await driveSmtp({
      port: Number(new URL(server.baseUrl).port),
      durationMs,
      body: TEN_KB_WITH_ATTACHMENT_BODY,
      address: inboundAddress,
      onWindowStart: () => {
        postedAtStart = hook.received.length;
        windowStart = performance.now();
      },
    });
    const postedInWindow = hook.received.length - postedAtStart;
    const windowSeconds = (performance.now() - windowStart) / 1000;
    if (action === 'store') return result;
    const drainSeconds = await drained(hook, result.accepted);
    // A backlog still there at the limit is reported, not thrown: the other rows stand.
    const drain =
      drainSeconds === undefined
        ? `over ${DRAIN_LIMIT_MS / 1000} s: ${result.accepted - hook.received.length} of ${result.accepted} unposted`
        : Number(drainSeconds.toFixed(1));
    return { ...result, postedPerSecond: postedInWindow / windowSeconds, drainSeconds: drain };
  } finally {
    await server.stop();
  }
}

/** Runs the inbound benchmark; `durationMs` per measured case. */
export async function benchInbound(durationMs: number): Promise<InboundBenchRow[]> {
  const body = TEN_KB_WITH_ATTACHMENT_BODY;
  const [relay] = await benchRelay(durationMs, body);
  const hook = await startWebhookReceiver();
  try {
    const stored = await measureInbound('store', durationMs, hook);
    const posted = await measureInbound('webhook', durationMs, hook);
    const bare = relay!.bareSmtpServerPerSecond;
    const row = (name: string, perSecond: number): InboundBenchRow => ({
      case: name,
      msgsPerSecond: Math.round(perSecond),
      ratio: Number((perSecond / bare).toFixed(2)),
    });
    return [
      row('relay (login, committed with its delivery job)', relay!.mailplanePerSecond),
      row('inbound-store (committed)', stored.perSecond),
      {
        ...row('inbound-webhook (committed with its post job)', posted.perSecond),
        postedPerSecond: Math.round(posted.postedPerSecond!),
        drainSeconds: posted.drainSeconds!,
      },
      row('bare smtp-server (discards)', bare),
    ];
  } finally {
    await hook.close();
  }
}
