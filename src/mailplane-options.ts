/**
 * The options of `createMailplane` (src/mailplane.ts), as types; src/options.ts checks them.
 */
import type { Logger } from './logging/logger.js';
import type { RouterOptions } from './http/router.js';
import type { RateLimitConfig } from './rate-limits/limiter.js';
import type { JobRunnerOptions } from './jobs/types.js';
import type { RetentionConfig } from './retention/config.js';
import type { DnsConfig } from './dns/config.js';
import type { DnsResolver } from './dns/resolver.js';
import type { DeliveryConfig } from './delivery/config.js';
import type { Transport } from './delivery/transport.js';
import type { WarmupConfig } from './warmup/config.js';
import type { ShapingConfig } from './shaping/service.js';
import type { TpspTransportFactory } from './delivery/routing-transports.js';
import type { DomainRecordsConfig } from './domain/config.js';
import type { IdGenerator } from './model/ids.js';
import type { Clock } from './model/time.js';
import type { MailplaneStore } from './store/index.js';
import type { WebhookDeliveryConfig } from './webhook/config.js';
import type { Sandbox } from './sandbox/index.js';
import type { MetricsHandlerOptions } from './http/metrics-handler.js';
import type { TemplateCacheConfig } from './template/cache.js';
import type { AlertNotifyConfig } from './alerts/notify-config.js';
import type { ReputationOptions } from './alerts/reputation-config.js';
import type { InboundConfig } from './inbound/config.js';

/**
 * What a `transport` factory is given: the instance's DNS resolver (the sandbox's when there is
 * one) and its delivery settings (`mxPort`, the timeouts).
 *
 * @example
 * transport: ({ resolver, delivery }) => mxTransport({ resolver, port: delivery.mxPort })
 */
export interface TransportServices {
  /** The instance's resolver, with its cache; it asks the sandbox DNS server when there is a sandbox. */
  readonly resolver: DnsResolver;
  /** The resolved delivery settings; `mxPort` is the sandbox catcher's port when there is a sandbox. */
  readonly delivery: DeliveryConfig;
}

/**
 * Options of {@link createMailplane}, checked when it is called: a bad one throws a
 * {@link MailplaneOptionsError} naming every bad option and what it accepts.
 */
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
  /**
   * Traffic shaping (docs/shaping.md): `rules` over the default table per destination × source
   * (connections, messages per connection, rates, timeouts), and how adaptive throttling slows down
   * and recovers. Each account may add its own rules through `PUT /account/shaping/rule`.
   */
  shaping?: Partial<ShapingConfig>;
  /** How webhook events are posted: private targets, timeout, concurrency, retries (docs/webhooks.md). */
  webhooks?: Partial<WebhookDeliveryConfig>;
  /**
   * Where delivery sends signed messages, or a factory given {@link TransportServices} (for
   * transports that use the instance's DNS resolver), e.g.
   * `({ resolver, delivery }) => mxTransport({ resolver, port: delivery.mxPort })` from
   * `mailplane/transport/smtp`. `close()` closes it. Without one, accepted messages wait queued.
   */
  transport?: Transport | ((services: TransportServices) => Transport);
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
   * `transactionalSlots` keeps slots of a lane for transactional mail (`delivery`: one in eight).
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
  /**
   * `GET /metrics` (docs/operations.md): when set (`{}` is enough), {@link Mailplane.handler}
   * serves it; `token` requires `Authorization: Bearer <token>`. Unset: only
   * {@link Mailplane.handleMetrics} answers it, where the host mounts that.
   */
  metrics?: MetricsHandlerOptions;
  /**
   * How many compiled templates this instance keeps, by the SHA-256 of their source: at most
   * `maxTemplates` (default 1,000) standing for at most `maxCharacters` of source (default 64 M).
   * The cache is the instance's own; `close()` empties it.
   */
  templateCache?: Partial<TemplateCacheConfig>;
  /**
   * Incident notifications (docs/reputation.md, "Notifications"): `from` is the address their
   * emails are sent from, through this instance, as the sub-account that owns its domain (which must
   * be a verified sending domain of the incident's account). Unset: no notification emails; the
   * webhook and Slack notifications still go.
   *
   * @example
   * createMailplane({ store, secret, alerts: { from: 'alerts@mail.example.com' } });
   */
  alerts?: Partial<AlertNotifyConfig>;
  /**
   * The reputation guard (docs/reputation.md): how often alert rules and the automatic protection
   * are evaluated (default every minute, on one node of a cluster), and the protection's default
   * lines for every account (a hard-bounce rate of 10 % blocks a sub-account and 5 % warns; a
   * spam-complaint rate of 0.3 % blocks and 0.1 % warns), which accounts may change through the API.
   *
   * @example
   * createMailplane({ store, secret, reputation: { protection: { enabled: false } } });
   */
  reputation?: ReputationOptions;
  /**
   * Receiving mail (docs/inbound.md): `hostname` is the inbound MX listener's host name, the value
   * of the MX record each receiving domain publishes. Unset: receiving cannot be enabled (422
   * `INBOUND_NOT_CONFIGURED`).
   *
   * @example
   * createMailplane({ store, secret, inbound: { hostname: 'mx.mail.example.net' } });
   */
  inbound?: Partial<InboundConfig>;
}
