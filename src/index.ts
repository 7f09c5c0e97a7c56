/**
 * mailplane: embeddable email-platform primitives. Start with {@link createMailplane}.
 *
 * @packageDocumentation
 * @module mailplane
 */
export { createMailplane, type Mailplane, type MailplaneOptions, type TransportServices } from './mailplane.js';
export { mountHandlers, type Mount, type MountedHandler } from './http/mount.js';
export {
  startSandbox,
  SANDBOX_MX_HOST,
  type Sandbox,
  type SandboxOptions,
  type SandboxDkimResult,
} from './sandbox/index.js';
export * from './errors.js';
export {
  createHealthHandler,
  checkReadiness,
  HEALTH_PATHS,
  READINESS_TIMEOUT_MS,
  type Readiness,
  type ReadinessSources,
} from './health.js';
export { pinoLogger, isLogLevel, LOG_LEVELS, type LogLevel, type PinoLoggerOptions } from './logging/pino-logger.js';
export { MailplaneMetrics, type MetricsSources } from './metrics/metrics.js';
export { createMetricsHandler, type MetricsHandlerOptions } from './http/metrics-handler.js';
export { verifySecret, SECRET_CHECK_SETTING } from './crypto/secret-check.js';
export type { HttpHandler, HttpRequest, HttpResponse, HeaderMap } from './http/types.js';
export { responseBody } from './http/types.js';
export { createSmtpRelay, type SmtpRelay, type SmtpRelayOptions } from './smtp/relay.js';
export type { SmtpListener } from './smtp/server.js';
export type { LoginThrottleOptions } from './smtp/login-throttle.js';
export { createBounceReceiver, type BounceReceiver, type BounceReceiverOptions } from './bounce/receiver.js';
export { createInboundReceiver, type InboundReceiver, type InboundReceiverOptions } from './inbound/receiver.js';
export {
  MAX_PAYLOAD_HEADERS,
  type InboundPayload,
  type PayloadAddress,
  type PayloadAttachment,
} from './inbound/payload.js';
export type { InboundConfig } from './inbound/config.js';
export { DEFAULT_BODY_LIMIT, type RouterOptions } from './http/router.js';
export {
  defaultRateLimitConfig,
  resolveRateLimitConfig,
  RATE_LIMIT_WINDOW_MS,
  type RateLimitConfig,
} from './rate-limits/limiter.js';
export { stringifyJson } from './model/json.js';
export { errorResponse, httpStatusOf, HTTP_ERROR_RULES, type HttpErrorRule } from './http/errors.js';
export { consoleLogger, silentLogger, type Logger } from './logging/logger.js';
export {
  defaultDomainRecordsConfig,
  DKIM_KEY_SIZES,
  resolveDomainRecordsConfig,
  type DkimKeyBits,
  type DomainRecordsConfig,
} from './domain/config.js';
export { expectedDnsRecords } from './domain/records.js';
export { systemClock, manualClock, msToNs, nowNs, type Clock, type EpochNs } from './model/time.js';
export { randomIds, TimeOrderedIds, type IdGenerator } from './model/ids.js';
export type { ListQuery } from './model/paging.js';
export { createSecretBox, randomToken, MIN_SECRET_LENGTH, type SecretBox } from './crypto/secrets.js';
export { ACCOUNT_KEY_PREFIX, SUBACCOUNT_KEY_PREFIX } from './account/keys.js';
export {
  generateAccountKey,
  type CreateAccountOptions,
  type CreateAccountResult,
  type EnsureAccountResult,
} from './account/accounts.js';
export * from './store/index.js';
export { STORED_COUNTERS, type StoredCounter, type StoredCounters } from './store/stats-store.js';
export { withSent, zeroCounters, type StatCounters } from './stats/counters.js';
export { dayOfMs, eachDay, type Day } from './model/dates.js';
export { success, failure } from './store/outcome.js';
export { withStorageFaults, storageFault, isUnavailableFault } from './store/faults.js';
export * from './jobs/index.js';
export {
  signWebhookPayload,
  verifyWebhookSignature,
  checkWebhookTarget,
  WEBHOOK_SIGNATURE_HEADER,
  DEFAULT_SIGNATURE_TOLERANCE_SECONDS,
  type SignatureVerification,
  type WebhookTargetCheck,
  standardWebhookHeaders,
  STANDARD_WEBHOOK_HEADERS,
} from './webhook/index.js';
export { emailAddressProblem, isEmailAddress } from './model/email-address.js';
export { normaliseDomainName } from './domain/name.js';
export {
  createDnsResolver,
  createRdapLookup,
  checkDomainRecords,
  verifyDomainDns,
  detectDnsProvider,
  parseDnsServers,
  type DnsResolver,
  type DnsResolverOptions,
  type DnsServerAddress,
  type DnsLookupResult,
  type RegistrationDateLookup,
} from './dns/index.js';
export { verifyDomainNow, type VerifyDomainOptions } from './domain/verification.js';
export { nextDomainCheckAt } from './domain/verification-schedule.js';
export {
  createRoutingTable,
  routeMessage,
  selectPool,
  type RoutingTable,
  type RouteDecision,
  type RouteRequest,
  type RoutedEntity,
} from './routing/router.js';
export { createProviderClassifier, mxHostsFrom, type ProviderClassifier } from './routing/classifier.js';
export { createGroupCommit, type GroupCommit, type StoreWrite } from './store/group-commit.js';
export { uuidV7 } from './model/ids.js';
export type {
  Transport,
  DeliveryResult,
  DeliveryKind,
  DeliveryRoute,
  Envelope,
  OutboundMessage,
  WarmupSend,
  TransportLimits,
  ConnectionGate,
} from './delivery/transport.js';
export { outboundMessage } from './delivery/transport.js';
export { resolveWarmupConfig, type WarmupConfig } from './warmup/config.js';
export {
  defaultTemplateCacheConfig,
  resolveTemplateCacheConfig,
  type TemplateCacheConfig,
  type TemplateCacheSize,
} from './template/cache.js';
export type {
  CompiledTemplates,
  MessageTemplates,
  RecipientData,
  RenderedMessage,
  TemplateCompiler,
} from './template/renderer.js';
export type { RetentionConfig } from './retention/config.js';
export type { AlertNotifyConfig } from './alerts/notify-config.js';
export type { ReputationOptions } from './alerts/reputation-config.js';
export { DEFAULT_PROTECTION, type ProtectionLine, type ProtectionSettings } from './alerts/protection.js';
export {
  DEFAULT_WARMUP_PLAN,
  DEFAULT_HOLD_THRESHOLDS,
  type WarmupPlan,
  type HoldThresholds,
  type WarmupProgress,
  type WarmupState,
  type StageTraffic,
} from './warmup/plan.js';
export { classifySmtpReply, parseEnhancedCode, type SmtpReply } from './bounce/classify.js';
export { verpAddress, messageIdOfVerp } from './delivery/verp.js';
export { resolveDeliveryConfig } from './delivery/config.js';
export { defaultDnsConfig, type DnsConfig } from './dns/config.js';
export { defaultDeliveryConfig, type DeliveryConfig } from './delivery/config.js';
export {
  defaultWebhookDeliveryConfig,
  resolveWebhookDeliveryConfig,
  type WebhookDeliveryConfig,
} from './webhook/config.js';

// Types that the exported signatures above mention, exported so that users can name them and the
// API reference documents them (typedoc warns about a referenced type it cannot document).
export type { jobPayloadSchemas } from './jobs/kinds.js';
export type { DomainVerifier } from './domain/verification.js';
export type { DeliveryRouting } from './delivery/route.js';
export type { TpspTransportFactory } from './delivery/routing-transports.js';
export type { WarmupService } from './warmup/service.js';
export type { Availability } from './routing/strategies.js';
export type { RoutingPool } from './routing/router.js';
export type { TargetCategory, WebhookTargetOptions } from './webhook/target.js';
export type { AddressCategory } from './model/address-class.js';
export type { DnsCheckResult, ExpectedDnsRecords } from './dns/checks.js';
export type { DomainNameResult } from './domain/name.js';
export type { DomainVerification, VerifyDomainDnsOptions } from './dns/verify.js';
export type { DnsFailureReason, DnsRecordValues, MxRecord } from './dns/answer.js';
export type { MailboxProvider } from './routing/providers.js';
export type { WaitReason } from './routing/overflow.js';
export type { SignatureFailure, SignedBody } from './webhook/signature.js';
export type { DnsLookupOptions } from './dns/resolver.js';
export type { ProviderClassifierOptions } from './routing/classifier.js';
export type { RdapLookupOptions } from './dns/rdap.js';
export type { DnsRecordType } from './dns/wire.js';
export type { RoutingTables } from './delivery/routing-tables.js';
export type { TpspConnection, TpspTransports } from './delivery/routing-transports.js';
export type { ExpectedCname, RecordCheck } from './dns/checks.js';
export type { BlockedReason, EntityStatus, RoutingState, RoutingStrategy } from './routing/strategies.js';
export type { ChainEnd } from './routing/overflow.js';
export type { RouteChoice } from './delivery/route.js';
export type { PaidSlot } from './delivery/route-admission.js';
export type { AdmittedShaping, ReplyVerdict, ShapingConfig, TrafficShaping } from './shaping/service.js';
export type {
  Destination as ShapingDestination,
  ResolvedShaping,
  ShapingLimits,
  ShapingRule,
  Source as ShapingSource,
} from './shaping/rules.js';
export type { ReplySeen } from './shaping/reply-words.js';
export type { ThrottleAction, ThrottleKind } from './shaping/throttle-replies.js';
export type { IpWarmupView, WarmupEvaluation } from './warmup/service.js';
export type { WarmupCounts } from './warmup/caps.js';
export type { RoutingEntity } from './routing/metadata.js';
export type { WarmingIp } from './warmup/caps.js';
export type { Blocked, PickInput, PickResult } from './routing/strategies.js';
export type { AccountRouting } from './delivery/routing-tables.js';
