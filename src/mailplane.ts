import { createAccount, ensureAccount, type CreateAccountOptions } from './account/accounts.js';
import { consoleLogger, type Logger, type MailplaneContext } from './context.js';
import { createSecretBox } from './crypto/secrets.js';
import { resolveDomainRecordsConfig, type DomainRecordsConfig } from './domain/config.js';
import { createRouter, type RouterOptions } from './http/router.js';
import { resolveRateLimitConfig, type RateLimitConfig } from './account/rate-limits.js';
import { createJobQueue } from './jobs/queue.js';
import { createJobRunner } from './jobs/runner.js';
import type { JobRunnerOptions } from './jobs/types.js';
import { backgroundJobHandlers, defaultLaneSlots } from './background.js';
import { resolveRetentionConfig, type RetentionConfig } from './retention/config.js';
import { scheduleRetention } from './retention/jobs.js';
import { createTrackingHandler } from './http/tracking-handler.js';
import { createGroupCommit } from './store/group-commit.js';
import { resolveDnsConfig, type DnsConfig } from './dns/config.js';
import { createDnsResolver } from './dns/resolver.js';
import { resolveDeliveryConfig, type DeliveryConfig } from './delivery/config.js';
import type { Transport } from './delivery/transport.js';
import { resolveWarmupConfig, type WarmupConfig } from './warmup/config.js';
import { WarmupService } from './warmup/service.js';
import { DeliveryRouting } from './delivery/route.js';
import type { TpspTransportFactory } from './delivery/routing-transports.js';
import { DomainVerifier } from './domain/verification.js';
import { apiRoutes } from './http/routes/index.js';
import type { HttpHandler } from './http/types.js';
import { TimeOrderedIds, type IdGenerator } from './model/ids.js';
import { systemClock, type Clock } from './model/time.js';
import type { MailplaneStore } from './store/index.js';
import { SecretMismatchError } from './errors.js';
import { describeError } from './http/errors.js';
import { resolveWebhookDeliveryConfig, type WebhookDeliveryConfig } from './webhook/config.js';
import { webhookSender } from './webhook/sender.js';
import { withWebhookOutbox } from './webhook/outbox.js';
import { withStorageFaults } from './store/faults.js';
import type { Sandbox } from './sandbox/index.js';
import { systemDnsServers } from './dns/servers.js';
import { checkReadiness, createHealthHandler, type Readiness } from './health.js';
import { verifySecret } from './crypto/secret-check.js';
import { jobPayloadSchemas } from './jobs/kinds.js';
import { createMetricsHandler, type MetricsHandlerOptions } from './http/metrics-handler.js';
import { MailplaneMetrics } from './metrics/metrics.js';
import { resolveTemplateCacheConfig, type TemplateCacheConfig } from './template/cache.js';
import { TemplateCompiler } from './template/renderer.js';

/** Options of {@link createMailplane}. */
export interface MailplaneOptions {
  /** Where everything is stored, e.g. `await openKyselyStore({ url })` from `mailplane/storage/kysely`. */
  store: MailplaneStore;
  /**
   * The instance secret (at least 32 characters): keys, passwords and DKIM keys are encrypted
   * under it and looked up by hashes keyed with it. Losing it makes stored secrets unreadable.
   */
  secret: string;
  /** HTTP router settings. */
  http?: RouterOptions;
  /**
   * API rate limits per key, shared by every node on one database: `requestsPerMinute` on every
   * route but the send endpoint, `recipientsPerMinute` (to + cc + bcc) on `POST /subaccount/email`.
   * Over the limit a request gets `429 RATE_LIMITED` with `Retry-After`; limited responses carry
   * `X-RateLimit-Limit`, `-Remaining` and `-Reset`. Defaults: 6,000 requests and 600,000
   * recipients a minute (docs/api-conventions.md, "Rate limits"). `false` turns them off.
   *
   * @example
   * createMailplane({ store, secret, rateLimits: { requestsPerMinute: 1_200, recipientsPerMinute: 100_000 } });
   */
  rateLimits?: Partial<RateLimitConfig> | false;
  /** Where the DNS records of sending domains point (bounce and tracking hosts, DKIM selector). */
  domains?: Partial<DomainRecordsConfig>;
  /**
   * Public base URL under which the host serves mailplane's tracking and unsubscribe endpoints,
   * e.g. `https://mail.example.com/t` (default `http://127.0.0.1:3000/t`).
   */
  trackingBaseUrl?: string;
  /** DNS resolvers (verification, MX lookups) and RDAP; default: the system's resolvers. */
  dns?: Partial<DnsConfig>;
  /** SMTP delivery settings. */
  delivery?: Partial<DeliveryConfig>;
  /** The IP warmup plan and when a provider's stage is held (docs/routing.md, "Warmup plan"). */
  warmup?: Partial<WarmupConfig>;
  /** How webhook events are posted: private targets, timeout, concurrency, retries (docs/webhooks.md). */
  webhooks?: Partial<WebhookDeliveryConfig>;
  /**
   * Where delivery sends signed messages, or a factory given the context (for transports that use
   * its DNS resolver), e.g. `(ctx) => mxTransport({ resolver: ctx.resolver, port: ctx.config.delivery.mxPort })`
   * from `mailplane/transport/smtp`. `close()` closes it. Without one, accepted messages wait queued.
   */
  transport?: Transport | ((context: MailplaneContext) => Transport);
  /**
   * Builds the transport of a TPSP (a pool member that is a third-party SMTP service) from its
   * stored record, password decrypted; called once per TPSP and again when the record changes, e.g.
   * `(t) => smartHostTransport({ host: t.host, port: t.port, secure: t.security === 'tls', requireTLS: t.security === 'starttls', auth: { user: t.username, pass: t.password } })`.
   * Without one, messages routed to a TPSP wait.
   */
  tpspTransport?: TpspTransportFactory;
  clock?: Clock;
  ids?: IdGenerator;
  logger?: Logger;
  /**
   * Settings of the background job runner that `start()` starts (concurrency, polling, leases,
   * backoff). Delivery and webhook jobs run in lanes of their own (`lanes`: `delivery` 32 and
   * `webhooks` 16 slots by default); `concurrency` (default 10) is the slots of the other jobs.
   */
  jobs?: Omit<JobRunnerOptions, 'handlers' | 'queue'>;
  /** How long messages and events are kept (default 30 days; docs/activity.md, "Retention"). */
  retention?: Partial<RetentionConfig>;
  /**
   * A running sandbox (`await startSandbox()`): DNS questions go to its server, which answers for
   * `.test` and `.example` domains and forwards the rest to `dns.servers` (or the system's), and
   * delivery connects to its mail catcher, which keeps the mail for `GET /account/sandbox/message`.
   * `close()` closes it. See docs/sandbox.md.
   */
  sandbox?: Sandbox;
  /** `GET /metrics` settings: `token` requires `Authorization: Bearer <token>` (docs/operations.md). */
  metrics?: MetricsHandlerOptions;
  /**
   * How many compiled templates this instance keeps, by the SHA-256 of their source: at most
   * `maxTemplates` (default 1,000) standing for at most `maxCharacters` of source (default 64 M).
   * The cache is the instance's own; `close()` empties it.
   */
  templateCache?: Partial<TemplateCacheConfig>;
}

/** One mailplane instance: the HTTP API and the operations behind it. */
export interface Mailplane {
  /** The `/api/v1` router; mount it with `toNodeHandler`, `toExpress` or `toKoa`. */
  readonly handle: HttpHandler;
  /**
   * The public link endpoints (unsubscribe page and RFC 8058 one-click); mount it at the path of
   * `trackingBaseUrl`, e.g. `app.use('/t', toExpress(mailplane.handleLinks))`.
   */
  readonly handleLinks: HttpHandler;
  /**
   * `GET /healthz` (the process answers) and `GET /readyz` (the store answers with its schema
   * current, the secret matches the database's, the job runner polls when `start()` was called;
   * 503 with the reason otherwise), e.g. `app.get(['/healthz', '/readyz'], toExpress(mailplane.handleHealth))`.
   */
  readonly handleHealth: HttpHandler;
  /**
   * `GET /metrics`: this instance's Prometheus metrics (docs/operations.md), behind the bearer token
   * of `options.metrics.token` when set, e.g. `app.get('/metrics', toExpress(mailplane.handleMetrics))`.
   */
  readonly handleMetrics: HttpHandler;
  /** What `GET /readyz` answers, for hosts with their own health endpoint. */
  readiness(): Promise<Readiness>;
  /** The shared collaborators, for the operations modules. */
  readonly context: MailplaneContext;
  /** Creates an account (with its default sub-account); returns its key in clear, once. */
  createAccount(options: CreateAccountOptions): ReturnType<typeof createAccount>;
  /**
   * For single-account deployments: creates the account on first start (returning the generated
   * key once) or adopts `apiKey` as its key.
   */
  ensureAccount(options?: { apiKey?: string; name?: string }): ReturnType<typeof ensureAccount>;
  /**
   * Checks that the database was set up with this instance's secret (writing the check value on
   * the first start), and throws {@link SecretMismatchError} when it was not. `ensureAccount`,
   * `createAccount` and `start` run it first; it runs once per instance.
   */
  verifySecret(): Promise<void>;
  /**
   * Starts background work in this process: the durable job runner (delivery, DNS re-checks,
   * webhooks), once {@link Mailplane.verifySecret} has passed. Several processes may run it against
   * one PostgreSQL database. The promise rejects (and no job runs) when the secret does not match.
   */
  start(): Promise<void>;
  /** Stops background work started by `start()` (handing jobs back); the API keeps serving. */
  stop(): Promise<void>;
  /**
   * Stops background work (finishing or handing back running jobs), closes the runtime services
   * (domain checks running finish; the delivery and TPSP transports close) and closes the store.
   */
  close(): Promise<void>;
}

/**
 * The composition root: wires storage, secrets and the HTTP router into one instance.
 *
 * @example
 * import { createMailplane } from 'mailplane';
 * import { openKyselyStore } from 'mailplane/storage/kysely';
 * import { toNodeHandler } from 'mailplane/node';
 *
 * const mailplane = createMailplane({
 *   store: await openKyselyStore({ url: 'sqlite:./data/mailplane.db' }),
 *   secret: process.env.MAILPLANE_SECRET!,
 * });
 * const { generatedApiKey } = await mailplane.ensureAccount();
 * http.createServer(toNodeHandler(mailplane.handle, { prefix: '/api/v1' })).listen(3000);
 */
export function createMailplane(options: MailplaneOptions): Mailplane {
  const clock = options.clock ?? systemClock;
  // Every event recorded through this store also queues its webhook deliveries, in the same transaction.
  let wakeRunner = () => {};
  const store = withWebhookOutbox(withStorageFaults(options.store), { clock, onEnqueued: () => wakeRunner() });
  const logger = options.logger ?? consoleLogger;
  const { sandbox } = options;
  // In the sandbox, mailplane asks the sandbox DNS server, and the sandbox asks the configured resolvers.
  const upstream = options.dns?.servers?.length ? options.dns.servers : sandbox ? systemDnsServers() : [];
  const dns = resolveDnsConfig(sandbox ? { ...options.dns, servers: [sandbox.dns] } : options.dns);
  const metrics = new MailplaneMetrics({
    jobQueue: async () => {
      const nowMs = clock.now();
      const stats = new Map((await store.jobs.queueStats(nowMs)).map((line) => [line.kind, line]));
      // Every kind mailplane runs is named, at 0 when it has no job: a series does not vanish when its queue drains.
      return Object.keys(jobPayloadSchemas).map((kind) => {
        const line = stats.get(kind);
        return {
          kind,
          pending: line?.pending ?? 0,
          oldestDueAgeSeconds: line?.oldestDueAt == null ? 0 : Math.max(0, nowMs - line.oldestDueAt) / 1000,
        };
      });
    },
  });
  const core: Omit<MailplaneContext, 'transport' | 'routing' | 'warmup' | 'domainVerifier' | 'templateCompiler'> = {
    config: {
      domains: resolveDomainRecordsConfig(options.domains),
      trackingBaseUrl: (options.trackingBaseUrl ?? 'http://127.0.0.1:3000/t').replace(/\/+$/, ''),
      dns,
      delivery: resolveDeliveryConfig(sandbox ? { ...options.delivery, mxPort: sandbox.smtpPort } : options.delivery),
      warmup: resolveWarmupConfig(options.warmup),
      webhooks: resolveWebhookDeliveryConfig(options.webhooks),
      rateLimits: resolveRateLimitConfig(options.rateLimits),
      retention: resolveRetentionConfig(options.retention),
      templateCache: resolveTemplateCacheConfig(options.templateCache),
    },
    store,
    secrets: createSecretBox(options.secret),
    clock,
    ids: options.ids ?? new TimeOrderedIds(),
    logger,
    metrics,
    jobs: createJobQueue({ store, clock, logger }),
    writes: createGroupCommit(store),
    resolver: createDnsResolver({
      ...(dns.servers.length > 0 && { servers: dns.servers }),
      timeoutMs: dns.timeoutMs,
      retries: dns.retries,
      clock,
    }),
    ...(options.tpspTransport && { tpspTransport: options.tpspTransport }),
  };
  // The runtime services: built once here, each owning its caches, closed by close() below.
  const { jobs, resolver, secrets, config } = core;
  const warmup = new WarmupService({ store, clock, logger, jobs, config: config.warmup });
  const routing = new DeliveryRouting({
    store,
    clock,
    logger,
    resolver,
    secrets,
    warmup,
    tpspTransport: options.tpspTransport,
  });
  const domainVerifier = new DomainVerifier({ store, clock, logger, resolver, jobs, config, metrics });
  const templateCompiler = new TemplateCompiler(config.templateCache);
  const base: Omit<MailplaneContext, 'transport'> = { ...core, routing, warmup, domainVerifier, templateCompiler };
  const transport = typeof options.transport === 'function' ? options.transport(base) : options.transport;
  const context: MailplaneContext = transport ? { ...base, transport } : base;
  // Owns the connections to webhook receivers and the per-account cap on their POSTs.
  const webhooks = webhookSender(context);
  const lanes = { ...defaultLaneSlots, ...options.jobs?.lanes };
  const runner = createJobRunner(context, {
    ...options.jobs,
    lanes,
    queue: context.jobs,
    handlers: backgroundJobHandlers(context, webhooks),
  });
  wakeRunner = () => context.jobs.notify();
  sandbox?.attach(context, upstream);
  let started = false;
  let closed = false;
  // One check per instance; a failure other than a mismatch (the database was down) is tried again.
  let secretChecked: Promise<void> | undefined;
  const checkSecret = () =>
    (secretChecked ??= verifySecret(store, context.secrets).catch((error: unknown) => {
      if (!(error instanceof SecretMismatchError)) secretChecked = undefined;
      throw error;
    }));
  const readiness = () =>
    checkReadiness({ store, secret: checkSecret, runner: () => (started ? runner.status() : null) });
  return {
    handle: createRouter(context, apiRoutes, options.http),
    handleLinks: createTrackingHandler(context),
    handleHealth: createHealthHandler(readiness),
    handleMetrics: createMetricsHandler(metrics, options.metrics),
    readiness,
    context,
    verifySecret: checkSecret,
    createAccount: async (accountOptions) => {
      await checkSecret();
      return createAccount(context, accountOptions);
    },
    ensureAccount: async (ensureOptions) => {
      await checkSecret();
      return ensureAccount(context, ensureOptions);
    },
    start: async () => {
      try {
        await checkSecret();
      } catch (error) {
        // close() ran while the check was under way: there is nothing left to start.
        if (closed) return;
        throw error;
      }
      if (started || closed) return;
      started = true;
      runner.start();
      // A failure here leaves the API and the other jobs running; the next start() schedules it again.
      await scheduleRetention(context).catch((error: unknown) =>
        logger.error('retention could not be scheduled', { error: describeError(error) }),
      );
    },
    stop: async () => {
      await runner.stop();
    },
    close: async () => {
      closed = true;
      if (started) await runner.stop();
      webhooks.close();
      await domainVerifier.close();
      await context.transport?.close();
      await routing.close();
      warmup.close();
      templateCompiler.close();
      await sandbox?.close();
      await context.store.close();
    },
  };
}
