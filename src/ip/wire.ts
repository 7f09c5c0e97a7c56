import type { IpPoolDetail, IpPoolRecord, IpRecord, TpspRecord } from '../store/index.js';
import type { IpWarmupView } from '../warmup/service.js';

/** Name of the one built-in warmup plan, as the reference's `AutoWarmupPlan.name` shows it. */
export const WARMUP_PLAN_NAME = 'Default Auto Warmup Plan';

/** The reference's `AutoWarmupPlan` field of each mailbox-provider id (0-11). */
const PLAN_FIELDS = [
  'gmailWarmupPlan', 'yahooWarmupPlan', 'aolWarmupPlan', 'microsoftWarmupPlan', 'comcastWarmupPlan', 'yandexWarmupPlan',
  'gmxWarmupPlan', 'mailruWarmupPlan', 'icloudWarmupPlan', 'zohoWarmupPlan', 'qqWarmupPlan', 'defaultWarmupPlan',
] as const;

/**
 * A running warmup as the reference's `AutoWarmupPlan`: per provider a JSON string with its stage,
 * today's limit (`null`: unlimited), today's sends and the plan's daily limits; `nextStageAt` (ns) is
 * ours: when the next evaluation is due.
 */
export function warmupPlanToWire(view: IpWarmupView, stages: readonly number[]) {
  const plan: Record<string, string | number | bigint> = {
    id: 1,
    name: WARMUP_PLAN_NAME,
    warmupInterval: view.intervalHours,
  };
  PLAN_FIELDS.forEach((field, provider) => {
    const cap = view.state.caps[provider]!;
    plan[field] = JSON.stringify({
      stage: Math.min(view.state.stages[provider]!, stages.length),
      dailyLimit: Number.isFinite(cap) ? cap : null,
      sentToday: view.sentToday[provider] ?? 0,
      stages,
    });
  });
  plan.nextStageAt = BigInt(view.state.nextBoundaryAtMs) * 1_000_000n;
  plan.created = view.startedAt;
  plan.updated = view.updated;
  return plan;
}

/**
 * An IP as the API shows it: the spec's IP fields, and while a warmup runs `autoWarmupStage` (the
 * lowest stage among providers, as the reference's examples show it) and `autoWarmupPlan`. The spec
 * spells the address `publicIp` and the host name `reverseDnsHostname`; the reference document says
 * `publicIP` and `reverseDNSHostname`.
 */
export function ipToWire(ip: IpRecord, warmup?: { view: IpWarmupView; stages: readonly number[] }) {
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
export function tpspToWire(tpsp: TpspRecord) {
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
export function poolToWire(detail: IpPoolDetail) {
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
export function poolDeletedToWire(pool: IpPoolRecord) {
  return { id: pool.id, message: `IPPool (${pool.name}) has been deleted successfully` };
}
