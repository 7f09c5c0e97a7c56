/**
 * Row shapes of the in-memory store: the contract's records plus the primary key (`key`) and the
 * few columns the Kysely schema keeps beside them (a job's lease time, an event's insertion order).
 */
import type { Day } from '../../model/dates.js';
import type { EpochNs } from '../../model/time.js';
import type { StoredCounters } from '../../store/stats-store.js';
import type {
  AccountRecord,
  DomainRecord,
  EventRecord,
  IpPoolRecord,
  IpRecord,
  JobState,
  MessageRecord,
  SandboxMessageRecord,
  SendBatchRecord,
  SmtpAuthRecord,
  SubAccountRecord,
  SuppressionRecord,
  TemplateVersionRecord,
  TpspRecord,
  WarmupProgressRecord,
  WebhookRecord,
  WebhookDeliveryRecord,
} from '../../store/index.js';
import type { IdempotencyKeyRecord } from '../../store/idempotency-store.js';
import type { AlertRecord, ProtectionSettingsRecord } from '../../store/alert-store.js';
import type { IncidentRecord } from '../../store/incident-store.js';
import type { ShapingRule, ShapingStateRecord } from '../../store/shaping-store.js';
import type { ReputationCounters, ReputationIncrement } from '../../store/reputation-store.js';
import type { InboundDomainRecord, InboundMessageRecord, InboundRouteRecord } from '../../store/inbound-store.js';
import type { InboundPostAttemptRecord } from '../../store/inbound-post-log.js';

/** Every row knows its primary key (`key`), so an overlay of tables.ts can tell which parent rows it shadows. */
export interface Keyed<K> {
  readonly key: K;
}

/** A stored account. */
export type AccountRow = AccountRecord & Keyed<number>;
/** A stored sub-account. */
export type SubAccountRow = SubAccountRecord & Keyed<number>;
/** Stored SMTP credentials. */
export type SmtpAuthRow = SmtpAuthRecord & Keyed<number>;
/** A stored domain. */
export type DomainRow = DomainRecord & Keyed<number>;
/** A stored suppression, keyed by `suppressionKey`. */
export type SuppressionRow = SuppressionRecord & Keyed<string>;
/** A stored IP. */
export type IpRow = IpRecord & Keyed<number>;
/** A stored TPSP. */
export type TpspRow = TpspRecord & Keyed<number>;
/** A stored pool (members are in `poolIps` and `poolTpsps`). */
export type IpPoolRow = IpPoolRecord & Keyed<number>;
/** An IP's membership of a pool, keyed by the IP id. */
export interface PoolIpRow extends Keyed<number> {
  poolId: number;
  ipId: number;
}
/** A TPSP's membership of a pool. */
export interface PoolTpspRow extends Keyed<string> {
  poolId: number;
  tpspId: number;
}
/** A stored webhook. */
export type WebhookRow = WebhookRecord & Keyed<number>;
/** One attempt of the webhook delivery log. */
export type WebhookDeliveryRow = WebhookDeliveryRecord & Keyed<number>;

/** A stored job, as the Kysely schema keeps it: `availableAt` is `runAt` when pending, the lease end when running. */
export interface JobRow extends Keyed<number> {
  id: number;
  kind: string;
  /** JSON text: a payload comes back as `JSON.parse(JSON.stringify(payload))`, as from a database. */
  payload: string;
  state: JobState;
  runAt: number;
  availableAt: number | null;
  lockedBy: string | null;
  attempts: number;
  dedupeKey: string | null;
  /** The dedupe key while the job is pending or running; `null` once dead (the key is free again). */
  activeDedupeKey: string | null;
  lastError: string | null;
  /** The rank of its class in the claim order (src/store/job-order.ts). */
  priority: number;
  fairKey: string | null;
  /** Its place in its class's fair order (epoch ms of virtual time, never below `runAt`). */
  fairAt: number;
}

/** Counters of one sub-account, day and group. */
export interface StatsRow extends Keyed<string> {
  accountId: number;
  subAccountId: number;
  day: Day;
  group: string;
  counters: StoredCounters;
}

/** A stored send batch. */
export type BatchRow = SendBatchRecord & Keyed<string>;
/** A stored message. */
export type MessageRow = MessageRecord & Keyed<string>;
/** A stored event; `seq` keeps insertion order among events of the same instant and type. */
export type EventRow = EventRecord & Keyed<string> & { seq: number };

/** Stored warmup progress, keyed by IP id. */
export type WarmupProgressRow = WarmupProgressRecord & Keyed<number>;
/** Sends of one IP to one provider on one day. */
export interface DailySendsRow extends Keyed<string> {
  ipId: number;
  day: Day;
  provider: number;
  sent: number;
}
/** Traffic of one warmup to one provider in one interval window. */
export interface WarmupTrafficRow extends Keyed<string> {
  ipId: number;
  startedAt: EpochNs;
  window: number;
  provider: number;
  sent: number;
  bounced: number;
  deferred: number;
}
/** One rate-limit bucket, keyed by its name. */
export interface RateLimitRow extends Keyed<string> {
  windowStart: number;
  used: number;
}

/** A message captured by the sandbox mail catcher, keyed by its id. */
export type SandboxMessageRow = SandboxMessageRecord & Keyed<number>;

/** A stored template (without its versions), keyed by its id. */
export interface TemplateRow extends Keyed<number> {
  id: number;
  subAccountId: number;
  name: string;
  activeVersion: number;
  latestVersion: number;
  created: EpochNs;
  updated: EpochNs;
}

/** A kept template version, keyed by `<templateId>:<version>`. */
export type TemplateVersionRow = TemplateVersionRecord & Keyed<string>;
/** An idempotency key, keyed by `${subAccountId}:${key}`. */
export type IdempotencyKeyRow = IdempotencyKeyRecord & Keyed<string>;
/** An alert rule (migration 0029). */
export type AlertRow = AlertRecord & Keyed<number>;
/** An incident with its timeline (migration 0029). */
export type IncidentRow = IncidentRecord & Keyed<number>;
/** The automatic protection's settings of an account or sub-account (migration 0031). */
export type ProtectionSettingsRow = ProtectionSettingsRecord & Keyed<string>;

/** One source × destination's state, keyed by its key (the in-flight count lives in the flights). */
export type ShapingStateRow = Omit<ShapingStateRecord, 'inFlight'> & Keyed<string>;
/** Messages in flight of one holder on one key, keyed by `<key>\u0000<holder>`. */
export interface ShapingFlightRow extends Keyed<string> {
  shapingKey: string;
  inFlight: number;
  leaseUntil: number;
}
/** An account's rule table, keyed by account id. */
export interface ShapingRulesRow extends Keyed<number> {
  rules: ShapingRule[];
}

/** One hourly reputation bucket (migration 0030), keyed by `reputationBucketKey`. */
export interface ReputationRow extends Keyed<string>, Omit<ReputationIncrement, 'counters'> {
  counters: ReputationCounters;
}

/** A receiving domain (migration 0033), keyed by its domain id; the row exists only while enabled. */
export type InboundDomainRow = InboundDomainRecord & Keyed<number>;
/** A route of inbound mail (migration 0033). */
export type InboundRouteRow = InboundRouteRecord & Keyed<number>;
/** A received message (migration 0033), keyed by its UUID. */
export type InboundMessageRow = InboundMessageRecord & Keyed<string>;
/** One POST of a received message to its route's webhook (migration 0035). */
export type InboundPostAttemptRow = InboundPostAttemptRecord & Keyed<number>;
