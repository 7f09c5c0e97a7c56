/**
 * The Prometheus metrics of one mailplane instance, on a registry of its own (never prom-client's
 * global one: two instances in one process, or a host with its own metrics, must not collide).
 * Every label has a bounded set of values (outcomes, reasons, reply classes, provider names, job
 * kinds, route patterns); recipient addresses and message ids are never labels.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { MAILBOX_PROVIDER_NAMES } from '../routing/providers.js';

/** What a scrape reads from the store: the job queue per kind. */
export interface MetricsSources {
  /** Each known job kind's pending jobs (due or not) and the age in seconds of its oldest due one (0 when none is due). */
  jobQueue(): Promise<Array<{ kind: string; pending: number; oldestDueAgeSeconds: number }>>;
  /** Traffic shaping's state per source × destination (docs/shaping.md), of every account. */
  shaping?(): Promise<
    Array<{ source: string; destination: string; factor: number; inFlight: number; suspended: boolean }>
  >;
}

/** Class of an SMTP reply code, `none` when the server never answered. */
export function replyClass(code: number | null): string {
  if (code === null || code < 200 || code >= 600) return 'none';
  return `${Math.floor(code / 100)}xx`;
}

/** A provider id of src/routing/providers.ts as a label value. */
export function providerLabel(provider: number): string {
  return MAILBOX_PROVIDER_NAMES[provider] ?? 'default';
}

/** The metrics one instance records; see docs/operations.md for the list. */
export class MailplaneMetrics {
  /** This instance's registry: what `GET /metrics` exposes. */
  readonly registry = new Registry();
  /** Messages by lifecycle outcome: accepted, refused (dropped at send), delivered, soft-bounced, hard-bounced, ... */
  readonly messages: Counter<'outcome'>;
  /** Messages dropped, by drop reason (at send, or by the delivery attempt). */
  readonly dropped: Counter<'reason'>;
  /** Seconds from acceptance to the 2xx of the receiving server. */
  readonly deliveryLatency: Histogram;
  /** SMTP replies to delivery attempts by class and recipient provider. */
  readonly smtpReplies: Counter<'class' | 'provider'>;
  /** API requests by method, route pattern and status. */
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  /** SMTP sessions closed, per listener (`smtp relay`, `bounce receiver`). */
  readonly smtpSessions: Counter<'listener'>;
  /** Failed SMTP relay logins. */
  readonly smtpAuthFailures: Counter;
  /** Webhook POSTs by result: `delivered` (2xx), `failed` (retried), `refused` (not retried). */
  readonly webhookDeliveries: Counter<'result'>;
  /** Reports the bounce receiver applied, by report kind and what they did to their message. */
  readonly bounceReports: Counter<'kind' | 'outcome'>;
  /** DNS checks of sending domains by result: `verified`, `failed`, `error`. */
  readonly dnsChecks: Counter<'result'>;
  /**
   * Opens recorded, by `unique` (`true` on a message's first open) and `proxy` (the mailbox
   * provider's image proxy that fetched the pixel, or `none`).
   */
  readonly opens: Counter<'unique' | 'proxy'>;
  /** Clicks recorded, by `unique` (`true` on a message's first click). */
  readonly clicks: Counter<'unique'>;
  /** Unsubscribes recorded, by `unique` (`false` when the message's recipient had already unsubscribed through it). */
  readonly unsubscribes: Counter<'unique'>;
  /** Spam complaints (ARF reports) applied to a message, by `unique` (`false` for a repeat about the same message). */
  readonly spamComplaints: Counter<'unique'>;
  /** Throttling and blocking replies that slowed down or suspended a source, by action and the table's reason code. */
  readonly shapingPushBacks: Counter<'action' | 'reason'>;
  /** Attempts traffic shaping did not admit at once, by why: `suspended`, `connections`, `rate`. */
  readonly shapingWaits: Counter<'why'>;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    this.messages = new Counter({
      name: 'mailplane_messages_total',
      help: 'Messages by lifecycle outcome',
      labelNames: ['outcome'],
      registers,
    });
    this.dropped = new Counter({
      name: 'mailplane_messages_dropped_total',
      help: 'Messages dropped, by reason',
      labelNames: ['reason'],
      registers,
    });
    this.deliveryLatency = new Histogram({
      name: 'mailplane_delivery_latency_seconds',
      help: 'Seconds from acceptance to the 2xx of the receiving server',
      buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600, 14400, 86400],
      registers,
    });
    this.smtpReplies = new Counter({
      name: 'mailplane_smtp_replies_total',
      help: 'SMTP replies to delivery attempts by class and recipient provider',
      labelNames: ['class', 'provider'],
      registers,
    });
    this.httpRequests = new Counter({
      name: 'mailplane_http_requests_total',
      help: 'API requests by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.smtpSessions = new Counter({
      name: 'mailplane_smtp_sessions_total',
      help: 'SMTP sessions closed, per listener',
      labelNames: ['listener'],
      registers,
    });
    this.smtpAuthFailures = new Counter({
      name: 'mailplane_smtp_auth_failures_total',
      help: 'Failed SMTP relay logins',
      registers,
    });
    this.webhookDeliveries = new Counter({
      name: 'mailplane_webhook_deliveries_total',
      help: 'Webhook POSTs by result',
      labelNames: ['result'],
      registers,
    });
    this.bounceReports = new Counter({
      name: 'mailplane_bounce_reports_total',
      help: 'Reports received by the bounce receiver, by kind and outcome',
      labelNames: ['kind', 'outcome'],
      registers,
    });
    this.dnsChecks = new Counter({
      name: 'mailplane_dns_checks_total',
      help: 'DNS checks of sending domains by result',
      labelNames: ['result'],
      registers,
    });
    this.opens = new Counter({
      name: 'mailplane_opens_total',
      help: 'Opens recorded, by first of the message and image proxy',
      labelNames: ['unique', 'proxy'],
      registers,
    });
    this.clicks = new Counter({
      name: 'mailplane_clicks_total',
      help: 'Clicks recorded, by first of the message',
      labelNames: ['unique'],
      registers,
    });
    this.unsubscribes = new Counter({
      name: 'mailplane_unsubscribes_total',
      help: 'Unsubscribes recorded, by first of the message',
      labelNames: ['unique'],
      registers,
    });
    this.spamComplaints = new Counter({
      name: 'mailplane_spam_complaints_total',
      help: 'Spam complaints applied to a message, by first of the message',
      labelNames: ['unique'],
      registers,
    });
    this.shapingPushBacks = new Counter({
      name: 'mailplane_shaping_pushbacks_total',
      help: 'Throttling or blocking replies that slowed down or suspended a source, by action and reason',
      labelNames: ['action', 'reason'],
      registers,
    });
    this.shapingWaits = new Counter({
      name: 'mailplane_shaping_waits_total',
      help: 'Delivery attempts traffic shaping did not admit at once, by why',
      labelNames: ['why'],
      registers,
    });
    if (sources.shaping) shapingGauges(registers, sources.shaping);
    // Both read at scrape time from the store (one read for the two), so every node sees the shared queue.
    let reading: Promise<Awaited<ReturnType<MetricsSources['jobQueue']>>> | undefined;
    const read = () => (reading ??= sources.jobQueue().finally(() => setImmediate(() => (reading = undefined))));
    new Gauge({
      name: 'mailplane_job_queue_depth',
      help: 'Pending background jobs per kind',
      labelNames: ['kind'],
      registers,
      async collect() {
        this.reset();
        for (const line of await read()) this.set({ kind: line.kind }, line.pending);
      },
    });
    new Gauge({
      name: 'mailplane_job_oldest_due_age_seconds',
      help: 'Age of the oldest due pending job per kind, 0 when none is due',
      labelNames: ['kind'],
      registers,
      async collect() {
        this.reset();
        for (const line of await read()) this.set({ kind: line.kind }, line.oldestDueAgeSeconds);
      },
    });
  }
}

/** The gauges of traffic shaping's state, read from the store at each scrape (one read for the three). */
function shapingGauges(registers: Registry[], source: NonNullable<MetricsSources['shaping']>): void {
  let reading: ReturnType<typeof source> | undefined;
  const read = () => (reading ??= source().finally(() => setImmediate(() => (reading = undefined))));
  const gauge = (name: string, help: string, value: (line: Awaited<ReturnType<typeof source>>[number]) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['source', 'destination'],
      registers,
      async collect() {
        this.reset();
        for (const line of await read()) this.set({ source: line.source, destination: line.destination }, value(line));
      },
    });
  gauge(
    'mailplane_shaping_factor',
    "Share of the rule's rate and connections in force per source and destination",
    (l) => l.factor,
  );
  gauge(
    'mailplane_shaping_in_flight',
    'Messages in flight per source and destination, over every node',
    (l) => l.inFlight,
  );
  gauge('mailplane_shaping_suspended', '1 while a source is suspended for a destination', (l) => (l.suspended ? 1 : 0));
}
