import { z } from 'zod';
import { epochNsSchema, type deletedSchema } from '../model/wire-schemas.js';
import type { IpPoolDetail, IpPoolRecord, IpRecord, TpspRecord } from '../store/index.js';
import type { IpWarmupView } from '../warmup/service.js';

/** Name of the one built-in warmup plan, as the reference's `AutoWarmupPlan.name` shows it. */
export const WARMUP_PLAN_NAME = 'Default Auto Warmup Plan';

/** The reference's `AutoWarmupPlan` field of each mailbox-provider id (0-11). */
const PLAN_FIELDS = [
  'gmailWarmupPlan',
  'yahooWarmupPlan',
  'aolWarmupPlan',
  'microsoftWarmupPlan',
  'comcastWarmupPlan',
  'yandexWarmupPlan',
  'gmxWarmupPlan',
  'mailruWarmupPlan',
  'icloudWarmupPlan',
  'zohoWarmupPlan',
  'qqWarmupPlan',
  'defaultWarmupPlan',
] as const;

/** The wire shape of {@link warmupPlanToWire}: the reference's `AutoWarmupPlan`. */
export const warmupPlanWireSchema = z.object({
  id: z.int(),
  name: z.string(),
  warmupInterval: z.int(),
  ...(Object.fromEntries(PLAN_FIELDS.map((field) => [field, z.string()])) as Record<
    (typeof PLAN_FIELDS)[number],
    z.ZodString
  >),
  nextStageAt: epochNsSchema,
  created: epochNsSchema,
  updated: epochNsSchema,
});

/**
 * A running warmup as the reference's `AutoWarmupPlan`: per provider a JSON string with its stage,
 * today's limit (`null`: unlimited), today's sends and the plan's daily limits; `nextStageAt` (ns) is
 * ours: when the next evaluation is due.
 */
export function warmupPlanToWire(view: IpWarmupView, stages: readonly number[]): z.output<typeof warmupPlanWireSchema> {
  const providers = Object.fromEntries(
    PLAN_FIELDS.map((field, provider) => {
      const cap = view.state.caps[provider]!;
      const plan = {
        stage: Math.min(view.state.stages[provider]!, stages.length),
        dailyLimit: Number.isFinite(cap) ? cap : null,
        sentToday: view.sentToday[provider] ?? 0,
        stages,
      };
      return [field, JSON.stringify(plan)];
    }),
  ) as Record<(typeof PLAN_FIELDS)[number], string>;
  return {
    id: 1,
    name: WARMUP_PLAN_NAME,
    warmupInterval: view.intervalHours,
    ...providers,
    nextStageAt: BigInt(view.state.nextBoundaryAtMs) * 1_000_000n,
    created: view.startedAt,
    updated: view.updated,
  };
}

/** The wire shape of {@link ipToWire}. */
export const ipWireSchema = z.object({
  id: z.int(),
  publicIp: z.string(),
  reverseDnsHostname: z.string(),
  type: z.int(),
  state: z.int(),
  autoWarmupEnabled: z.boolean(),
  autoWarmupStage: z.int().optional(),
  autoWarmupPlan: warmupPlanWireSchema.optional(),
  created: epochNsSchema,
});

/** The answer of an allocation: the first IP, as the reference has it, and `allocated`, every IP allocated. */
export const ipAllocationWireSchema = ipWireSchema.extend({ allocated: z.array(ipWireSchema) });

/** The wire shape of {@link tpspToWire}. */
export const tpspWireSchema = z.object({
  id: z.int(),
  name: z.string(),
  type: z.int(),
  host: z.string(),
  port: z.int(),
  security: z.enum(['tls', 'starttls', 'none']),
  username: z.string(),
  hasPassword: z.boolean(),
  domain: z.string(),
  endpoint: z.string(),
  key: z.string(),
  secret: z.string(),
  oauthToken: z.string(),
  retryTime: z.int(),
  created: epochNsSchema,
  updated: epochNsSchema,
});

/** The wire shape of {@link poolToWire}: the reference's `IPPool`. */
export const poolWireSchema = z.object({
  id: z.int(),
  name: z.string(),
  type: z.int(),
  routingStrategy: z.int(),
  routingMetaData: z.string(),
  shouldOverflow: z.boolean(),
  overflowPoolName: z.string(),
  warmupInterval: z.int(),
  ips: z.array(ipWireSchema),
  thirdPartySendingProviders: z.array(tpspWireSchema),
  created: epochNsSchema,
});

/**
 * An IP as the API shows it: the spec's IP fields, and while a warmup runs `autoWarmupStage` (the
 * lowest stage among providers, as the reference's examples show it) and `autoWarmupPlan`. The spec
 * spells the address `publicIp` and the host name `reverseDnsHostname`; the reference document says
 * `publicIP` and `reverseDNSHostname`.
 */
export function ipToWire(
  ip: IpRecord,
  warmup?: { view: IpWarmupView; stages: readonly number[] },
): z.output<typeof ipWireSchema> {
  return {
    id: ip.id,
    publicIp: ip.publicIp,
    reverseDnsHostname: ip.reverseDnsHostname,
    type: ip.type,
    state: ip.state,
    autoWarmupEnabled: ip.autoWarmupEnabled,
    ...(warmup && { autoWarmupStage: warmup.view.stage, autoWarmupPlan: warmupPlanToWire(warmup.view, warmup.stages) }),
    created: ip.created,
  };
}

/**
 * A TPSP as the API shows it: the reference's `ThirdPartySendingProvider` fields (`endpoint` is the
 * host, `key` the user name, `secret` always empty) plus the connection settings. The password is
 * never returned: `hasPassword` says whether one is stored.
 */
export function tpspToWire(tpsp: TpspRecord): z.output<typeof tpspWireSchema> {
  return {
    id: tpsp.id,
    name: tpsp.name,
    type: tpsp.kind,
    host: tpsp.host,
    port: tpsp.port,
    security: tpsp.security,
    username: tpsp.username,
    hasPassword: tpsp.passwordSealed !== '',
    domain: '',
    endpoint: tpsp.host,
    key: tpsp.username,
    secret: '',
    oauthToken: '',
    retryTime: 0,
    created: tpsp.created,
    updated: tpsp.updated,
  };
}

/** A pool as the API shows it: the spec's IP pool (the reference's `IPPool`). */
export function poolToWire(detail: IpPoolDetail): z.output<typeof poolWireSchema> {
  const { pool } = detail;
  return {
    id: pool.id,
    name: pool.name,
    type: pool.type,
    routingStrategy: pool.routingStrategy,
    routingMetaData: pool.routingMetaData,
    shouldOverflow: pool.shouldOverflow,
    overflowPoolName: detail.overflowPoolName,
    warmupInterval: pool.warmupInterval,
    ips: detail.ips.map((ip) => ipToWire(ip)),
    thirdPartySendingProviders: detail.tpsps.map(tpspToWire),
    created: pool.created,
  };
}

/** The `IPPoolDeleteResponse` of a deleted pool. */
export function poolDeletedToWire(pool: IpPoolRecord): z.output<typeof deletedSchema> {
  return { id: pool.id, message: `IPPool (${pool.name}) has been deleted successfully` };
}
