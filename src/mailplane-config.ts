/** The settings of one instance, resolved from `MailplaneOptions` by `createMailplane`. */
import type { RetentionConfig } from './retention/config.js';
import type { DomainRecordsConfig } from './domain/config.js';
import type { DnsConfig } from './dns/config.js';
import type { DeliveryConfig } from './delivery/config.js';
import type { WarmupConfig } from './warmup/config.js';
import type { WebhookDeliveryConfig } from './webhook/config.js';
import type { RateLimitConfig } from './rate-limits/limiter.js';
import type { TemplateCacheConfig } from './template/cache.js';
import type { AlertNotifyConfig } from './alerts/notify-config.js';
import type { ReputationConfig } from './alerts/reputation-config.js';
import type { InboundConfig } from './inbound/config.js';

/** Settings resolved from `MailplaneOptions`, with defaults filled in. */
export interface MailplaneConfig {
  /** Targets of the DNS records sending domains publish. */
  domains: DomainRecordsConfig;
  /** Public base URL of the tracking and unsubscribe endpoints, without a trailing slash. */
  trackingBaseUrl: string;
  /** Resolvers and RDAP. */
  dns: DnsConfig;
  /** SMTP delivery. */
  delivery: DeliveryConfig;
  /** How warming IPs grow. */
  warmup: WarmupConfig;
  /** How webhook events are posted. */
  webhooks: WebhookDeliveryConfig;
  /** API rate limits per key, or `false` when they are off. */
  rateLimits: RateLimitConfig | false;
  /** How long messages and events are kept. */
  retention: RetentionConfig;
  /** How many compiled templates the instance keeps. */
  templateCache: TemplateCacheConfig;
  /** Where incident notification emails come from. */
  alerts: AlertNotifyConfig;
  /** How often the reputation guard evaluates, and the automatic protection's defaults. */
  reputation: ReputationConfig;
  /** Receiving mail: the inbound MX host that receiving domains point at. */
  inbound: InboundConfig;
}
