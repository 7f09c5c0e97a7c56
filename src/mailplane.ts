import { resolveShapingConfig, TrafficShaping } from './shaping/service.js';
import { createAccount, ensureAccount, type CreateAccountOptions } from './account/accounts.js';
import type { MailplaneContext } from './context.js';
import { consoleLogger } from './logging/logger.js';
import { MAILPLANE_CONTEXT, type WithContext } from './instance-context.js';
import { checkMailplaneOptions } from './options.js';
import type { MailplaneOptions } from './mailplane-options.js';

export type { MailplaneOptions, TransportServices } from './mailplane-options.js';
import { mountHandlers, type MountedHandler } from './http/mount.js';
import { createSecretBox } from './crypto/secrets.js';
import { resolveDomainRecordsConfig } from './domain/config.js';
import { createRouter } from './http/router.js';
import { resolveRateLimitConfig } from './rate-limits/limiter.js';
import { createJobQueue } from './jobs/queue.js';
import { createJobRunner } from './jobs/runner.js';
import { backgroundJobHandlers, defaultLaneSlots, defaultTransactionalSlots } from './background.js';
import { resolveRetentionConfig } from './retention/config.js';
import { scheduleRetention } from './retention/jobs.js';
import { scheduleReputation } from './alerts/evaluation-job.js';
import { resolveReputationConfig } from './alerts/reputation-config.js';
import { createTrackingHandler } from './http/tracking-handler.js';
import { createGroupCommit } from './store/group-commit.js';
import { resolveDnsConfig } from './dns/config.js';
import { createDnsResolver } from './dns/resolver.js';
import { resolveDeliveryConfig } from './delivery/config.js';
import { resolveWarmupConfig } from './warmup/config.js';
import { WarmupService } from './warmup/service.js';
import { DeliveryRouting } from './delivery/route.js';
import { DeliveryService } from './delivery/service.js';
import { DomainVerifier } from './domain/verification.js';
import { apiRoutes } from './http/routes/index.js';
import type { HttpHandler } from './http/types.js';
import { TimeOrderedIds } from './model/ids.js';
import { systemClock } from './model/time.js';
import { SecretMismatchError } from './errors.js';
import { describeError } from './logging/describe-error.js';
import { resolveWebhookDeliveryConfig } from './webhook/config.js';
import { webhookSender } from './webhook/sender.js';
import { WebhookOutbox } from './lifecycle/webhook-outbox.js';
import { withStorageFaults } from './store/faults.js';
import { systemDnsServers } from './dns/servers.js';
import { checkReadiness, createHealthHandler, HEALTH_PATHS, type Readiness } from './health.js';
import { verifySecret } from './crypto/secret-check.js';
import { jobPayloadSchemas } from './jobs/kinds.js';
import { createMetricsHandler } from './http/metrics-handler.js';
import { MailplaneMetrics } from './metrics/metrics.js';
import { resolveTemplateCacheConfig } from './template/cache.js';
import { resolveAlertNotifyConfig } from './alerts/notify-config.js';
import { resolveInboundConfig } from './inbound/config.js';
import { InboundRecipientDirectory } from './domain/recipient-directory.js';
import { SANDBOX_MX_HOST } from './sandbox/zone.js';
import { sourcePauseIncidents } from './alerts/source-pause.js';
import { notifyProtectionIncident } from './alerts/protection-api.js';
import { TemplateCompiler } from './template/renderer.js';

/** One mailplane instance: the HTTP API and the operations behind it. */
export interface Mailplane {
  /**
   * Everything mailplane serves over HTTP, in one handler: the API under `/api/v1`, the tracking
   * and unsubscribe links under the path of `trackingBaseUrl` (`/t` by default), `GET /healthz` and
   * `/readyz`, and `GET /metrics` when `options.metrics` is set. Other paths are not its own: the
   * Express and Koa bridges pass them on, node's answers 404. Mount it at the root, in one line:
   * `http.createServer(toNodeHandler(mailplane.handler))`, `app.use(toExpress(mailplane.handler))`,
   * `app.use(toKoa(mailplane.handler))`; `withDashboard` (`mailplane/dashboard`) adds the console.
   */
  readonly handler: MountedHandler;
  /** The `/api/v1` router alone (paths below `/api/v1`); {@link Mailplane.handler} serves it too. */
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
   * Calling it again answers the first call's promise.
   */
  close(): Promise<void>;
}

/** Most source × destination states the metrics report (the most recently active): a bound on the series. */
const SHAPING_GAUGE_LIMIT = 500;

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
 *   secret: process.env.MAILPLANE_SECRET ?? '',
 * });
 * const { generatedApiKey } = await mailplane.ensureAccount();
 * http.createServer(toNodeHandler(mailplane.handler)).listen(3000, '127.0.0.1');
 */
export function createMailplane(options: MailplaneOptions): Mailplane {
  checkMailplaneOptions(options);
  const clock = options.clock ?? systemClock;
  const store = withStorageFaults(options.store);
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
    shaping: async () => {
      const nowMs = clock.now();
      const states = await store.shaping.states(null, nowMs, SHAPING_GAUGE_LIMIT);
      // Counts of open connections (`#connections` keys) are not states of their own.
      return states
        .filter((state) => !state.key.includes('#'))
        .map((state) => {
          const [source = '', destination = ''] = state.key.split('|');
          const suspended = state.suspendedUntil !== null && state.suspendedUntil > nowMs;
          return { source, destination, factor: state.factor, inFlight: state.inFlight, suspended };
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
      alerts: resolveAlertNotifyConfig(options.alerts),
      reputation: resolveReputationConfig(options.reputation),
      // In the sandbox every domain's MX is the catcher, which receives for receiving domains: that is the host.
      inbound: resolveInboundConfig(
        sandbox && !options.inbound?.hostname ? { ...options.inbound, hostname: SANDBOX_MX_HOST } : options.inbound,
      ),
    },
    store,
    secrets: createSecretBox(options.secret),
    clock,
    ids: options.ids ?? new TimeOrderedIds(),
    logger,
    metrics,
    jobs: createJobQueue({ store, clock, logger }),
    writes: createGroupCommit(store),
    webhookOutbox: new WebhookOutbox(clock),
    inboundRecipients: new InboundRecipientDirectory(store, clock),
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
  const shaping = new TrafficShaping({
    store,
    clock,
    logger,
    metrics,
    config: resolveShapingConfig(options.shaping),
    // A blocklist pause opens an incident (docs/reputation.md, "Automatic protection: paused sources").
    // `context` is built below; these run at delivery, once it is.
    pauses: sourcePauseIncidents({
      store,
      clock,
      logger,
      notify: (tx, incident, change) => notifyProtectionIncident(context, tx, incident, change),
      wake: () => context.jobs.notify(),
    }),
  });
  const routing = new DeliveryRouting({
    store,
    clock,
    logger,
    resolver,
    secrets,
    warmup,
    shaping,
    tpspTransport: options.tpspTransport,
  });
  const domainVerifier = new DomainVerifier({ store, clock, logger, resolver, jobs, config, metrics });
  const templateCompiler = new TemplateCompiler(config.templateCache);
  const base: Omit<MailplaneContext, 'transport'> = { ...core, routing, warmup, domainVerifier, templateCompiler };
  const transport =
    typeof options.transport === 'function'
      ? options.transport({ resolver: base.resolver, delivery: config.delivery })
      : options.transport;
  const context: MailplaneContext = transport ? { ...base, transport } : base;
  // Owns the connections to webhook receivers and the per-account cap on their POSTs.
  const webhooks = webhookSender(context);
  const delivery = new DeliveryService(context);
  const lanes = { ...defaultLaneSlots, ...options.jobs?.lanes };
  const runner = createJobRunner(context, {
    ...options.jobs,
    lanes,
    transactionalSlots: { ...defaultTransactionalSlots(lanes), ...options.jobs?.transactionalSlots },
    queue: context.jobs,
    handlers: backgroundJobHandlers(context, { delivery, webhookSender: webhooks }),
  });
  let started = false;
  // Set by the first start() and kept through stop(): a node that ran workers and stopped is not ready.
  let runsWorkers = false;
  let closed = false;
  let closing: Promise<void> | undefined;
  // One check per instance; a failure other than a mismatch (the database was down) is tried again.
  let secretChecked: Promise<void> | undefined;
  const checkSecret = () =>
    (secretChecked ??= verifySecret(store, context.secrets).catch((error: unknown) => {
      if (!(error instanceof SecretMismatchError)) secretChecked = undefined;
      throw error;
    }));
  const readiness = () =>
    checkReadiness({ store, secret: checkSecret, runner: () => (runsWorkers ? runner.status() : null) });
  const handle = createRouter(context, apiRoutes, options.http);
  const handleLinks = createTrackingHandler(context);
  const handleHealth = createHealthHandler(readiness);
  const handleMetrics = createMetricsHandler(metrics, options.metrics);
  const instance: Mailplane & WithContext = {
    [MAILPLANE_CONTEXT]: context,
    handler: mountHandlers([
      { path: '/api/v1', handle },
      ...HEALTH_PATHS.map((path) => ({ path, handle: handleHealth, exact: true })),
      ...(options.metrics ? [{ path: '/metrics', handle: handleMetrics, exact: true }] : []),
      // Last: a tracking URL without a path puts the links at the root, under everything else.
      { path: new URL(config.trackingBaseUrl).pathname.replace(/\/+$/, ''), handle: handleLinks },
    ]),
    handle,
    handleLinks,
    handleHealth,
    handleMetrics,
    readiness,
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
      runsWorkers = true;
      runner.start();
      // A failure here leaves the API and the other jobs running; the next start() schedules it again.
      await scheduleRetention(context).catch((error: unknown) =>
        logger.error('retention could not be scheduled', { error: describeError(error) }),
      );
      await scheduleReputation(context).catch((error: unknown) =>
        logger.error('the reputation evaluation could not be scheduled', { error: describeError(error) }),
      );
    },
    stop: async () => {
      await runner.stop();
      // Stopped work can be started again (the runner hands its jobs back and can restart).
      started = false;
    },
    // Once: a second call answers the first one's promise (the sandbox's servers cannot close twice).
    close: () => {
      closing ??= (async () => {
        closed = true;
        if (started) await runner.stop();
        webhooks.close();
        await delivery.close();
        await domainVerifier.close();
        await context.transport?.close();
        await routing.close();
        warmup.close();
        templateCompiler.close();
        await sandbox?.close();
        await context.store.close();
      })();
      return closing;
    },
  };
  sandbox?.attach(instance, upstream);
  return instance;
}
