/**
 * What routing at delivery keeps in memory per mailplane instance (keyed by its context): each
 * account's routing table with the states of its IPs and its TPSP records, sub-accounts' default
 * pools, and one mailbox-provider classifier. Tables are reloaded at the start of every delivery
 * job ({@link refreshRouting}) and otherwise after {@link ROUTING_TABLE_TTL_MS}; a reload keeps the
 * strategies' counters of pools whose members and metadata did not change (`createRoutingTable`).
 */
import type { MailplaneContext } from '../context.js';
import { dayOfMs } from '../model/dates.js';
import { nowNs } from '../model/time.js';
import { createProviderClassifier, mxHostsFrom, type ProviderClassifier } from '../routing/classifier.js';
import { createRoutingTable, type RoutingTable } from '../routing/router.js';
import { IpPoolType, type IpPoolDetail, type IpRecord, type TpspRecord } from '../store/ip-pool-store.js';
import { loadWarmupCounts, type WarmupCounts } from './warmup-caps.js';

/** How long a table is used without a reload when no job start refreshed it. */
export const ROUTING_TABLE_TTL_MS = 10_000;

/** Most pools of an account routing reads (the list endpoint's page limit). */
const MAX_POOLS = 1000;

/** One account's routing data. */
export interface AccountRouting {
  table: RoutingTable;
  ips: ReadonlyMap<number, IpRecord>;
  tpsps: ReadonlyMap<number, TpspRecord>;
  /** Caps and today's sends of the warming IPs. */
  warmup: WarmupCounts;
  /** Some pool routes by mailbox provider, or an IP is warming: only then is the recipient classified (an MX lookup). */
  needsProvider: boolean;
  loadedAt: number;
}

interface Runtime {
  classifier: ProviderClassifier;
  accounts: Map<number, AccountRouting>;
  /** Sub-account id -> its default pool id (`null`: the system pool), loaded with the account. */
  defaults: Map<number, { poolId: number | null; loadedAt: number }>;
  loading: Map<number, Promise<AccountRouting>>;
}

const runtimes = new WeakMap<MailplaneContext, Runtime>();

function runtimeOf(ctx: MailplaneContext): Runtime {
  let runtime = runtimes.get(ctx);
  if (!runtime) {
    // One classifier per instance: its cache of custom domains is shared by every job.
    runtime = {
      classifier: createProviderClassifier({ lookupMx: mxHostsFrom(ctx.resolver), clock: ctx.clock }),
      accounts: new Map(),
      defaults: new Map(),
      loading: new Map(),
    };
    runtimes.set(ctx, runtime);
  }
  return runtime;
}

/** The instance's mailbox-provider classifier. */
export function providerClassifier(ctx: MailplaneContext): ProviderClassifier {
  return runtimeOf(ctx).classifier;
}

async function loadAccount(ctx: MailplaneContext, runtime: Runtime, accountId: number): Promise<AccountRouting> {
  let details: IpPoolDetail[] = await ctx.store.ipPools.list(accountId, { limit: MAX_POOLS, offset: 0 });
  if (!details.some((d) => d.pool.type === IpPoolType.Shared)) {
    await ctx.store.ipPools.ensureSystemPool(accountId, nowNs(ctx.clock));
    details = await ctx.store.ipPools.list(accountId, { limit: MAX_POOLS, offset: 0 });
  }
  const previous = runtime.accounts.get(accountId);
  const warmup = await loadWarmupCounts(ctx, details);
  const routing: AccountRouting = {
    table: createRoutingTable(details, previous?.table),
    ips: new Map(details.flatMap((d) => d.ips.map((ip) => [ip.id, ip] as const))),
    tpsps: new Map(details.flatMap((d) => d.tpsps.map((t) => [t.id, t] as const))),
    warmup,
    needsProvider: warmup.warming.size > 0 || details.some((d) => d.pool.routingStrategy === 1),
    loadedAt: performance.now(),
  };
  for (const pool of routing.table.pools.values()) {
    if (pool.metadataProblems.length > 0) {
      ctx.logger.warn('routing: stored metadata of a pool does not parse; it routes round robin', { accountId, poolId: pool.id, problems: pool.metadataProblems });
    }
  }
  runtime.accounts.set(accountId, routing);
  return routing;
}

/** Reloads an account's pools (one concurrent load per account); called when a delivery job starts. */
export function refreshRouting(ctx: MailplaneContext, accountId: number): Promise<AccountRouting> {
  const runtime = runtimeOf(ctx);
  let pending = runtime.loading.get(accountId);
  if (!pending) {
    pending = loadAccount(ctx, runtime, accountId).finally(() => runtime.loading.delete(accountId));
    runtime.loading.set(accountId, pending);
  }
  return pending;
}

/**
 * The account's routing data, reloaded when older than {@link ROUTING_TABLE_TTL_MS} or when its
 * warmup counts are of another UTC day than the clock's.
 */
export async function accountRouting(ctx: MailplaneContext, accountId: number): Promise<AccountRouting> {
  const cached = runtimeOf(ctx).accounts.get(accountId);
  if (cached && performance.now() - cached.loadedAt < ROUTING_TABLE_TTL_MS && cached.warmup.day === dayOfMs(ctx.clock.now())) return cached;
  return refreshRouting(ctx, accountId);
}

/** The sub-account's default pool id (`null`: none), cached like the tables. */
export async function subAccountDefaultPool(ctx: MailplaneContext, accountId: number, subAccountId: number, fresh = false): Promise<number | null> {
  const runtime = runtimeOf(ctx);
  const cached = runtime.defaults.get(subAccountId);
  if (!fresh && cached && performance.now() - cached.loadedAt < ROUTING_TABLE_TTL_MS) return cached.poolId;
  const sub = await ctx.store.subAccounts.get(accountId, subAccountId);
  const poolId = sub?.defaultIpPoolId ?? null;
  runtime.defaults.set(subAccountId, { poolId, loadedAt: performance.now() });
  return poolId;
}
