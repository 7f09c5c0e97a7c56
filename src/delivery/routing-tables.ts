/**
 * What routing at delivery keeps in memory per mailplane instance: each account's routing table
 * with the states of its IPs and its TPSP records, sub-accounts' default pools, and one
 * mailbox-provider classifier. Tables are reloaded at the start of every delivery job
 * ({@link RoutingTables.refresh}) and otherwise after `ROUTING_TABLE_TTL_MS`; a reload keeps
 * the strategies' counters of pools whose members and metadata did not change (`createRoutingTable`).
 */
import type { DnsResolver } from '../dns/resolver.js';
import type { Logger } from '../logging/logger.js';
import { dayOfMs } from '../model/dates.js';
import { nowNs, type Clock } from '../model/time.js';
import { createProviderClassifier, mxHostsFrom, type ProviderClassifier } from '../routing/classifier.js';
import { createRoutingTable, type RoutingTable } from '../routing/router.js';
import type { MailplaneStore } from '../store/index.js';
import { IpPoolType, type IpPoolDetail, type IpRecord, type TpspRecord } from '../store/ip-pool-store.js';
import type { WarmupCounts } from '../warmup/caps.js';
import type { WarmupService } from '../warmup/service.js';

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

/** What the routing tables are loaded with. */
export interface RoutingTablesDeps {
  readonly store: MailplaneStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly resolver: DnsResolver;
  readonly warmup: WarmupService;
}

/** The routing tables of one instance, by account; part of its `DeliveryRouting` service. */
export class RoutingTables {
  /** One classifier per instance: its cache of custom domains is shared by every job. */
  readonly classifier: ProviderClassifier;
  private readonly accounts = new Map<number, AccountRouting>();
  /** Sub-account id -> its default pool id (`null`: the system pool), loaded with the account. */
  private readonly defaults = new Map<number, { poolId: number | null; loadedAt: number }>();
  private readonly loading = new Map<number, Promise<AccountRouting>>();
  /** The load that starts once the one in flight ends, per account. */
  private readonly queued = new Map<number, Promise<AccountRouting>>();

  constructor(private readonly deps: RoutingTablesDeps) {
    this.classifier = createProviderClassifier({ lookupMx: mxHostsFrom(deps.resolver), clock: deps.clock });
  }

  private async load(accountId: number): Promise<AccountRouting> {
    const { store, clock, logger } = this.deps;
    let details: IpPoolDetail[] = await store.ipPools.list(accountId, { limit: MAX_POOLS, offset: 0 });
    if (!details.some((d) => d.pool.type === IpPoolType.Shared)) {
      await store.ipPools.ensureSystemPool(accountId, nowNs(clock));
      details = await store.ipPools.list(accountId, { limit: MAX_POOLS, offset: 0 });
    }
    const previous = this.accounts.get(accountId);
    const counts = await this.deps.warmup.loadCounts(details);
    const routing: AccountRouting = {
      table: createRoutingTable(details, previous?.table),
      ips: new Map(details.flatMap((d) => d.ips.map((ip) => [ip.id, ip] as const))),
      tpsps: new Map(details.flatMap((d) => d.tpsps.map((t) => [t.id, t] as const))),
      warmup: counts,
      needsProvider: counts.warming.size > 0 || details.some((d) => d.pool.routingStrategy === 1),
      loadedAt: performance.now(),
    };
    for (const pool of routing.table.pools.values()) {
      if (pool.metadataProblems.length > 0) {
        logger.warn('routing: stored metadata of a pool does not parse; it routes round robin', {
          accountId,
          poolId: pool.id,
          problems: pool.metadataProblems,
        });
      }
    }
    this.accounts.set(accountId, routing);
    return routing;
  }

  /**
   * Reloads an account's pools; called when a delivery job starts. The answer is always read after
   * the call (a change committed just before it, on any node, is in it): a caller that finds a load
   * in flight, which may have read before the change, waits for the next one, which every caller
   * arriving meanwhile shares.
   */
  refresh(accountId: number): Promise<AccountRouting> {
    const running = this.loading.get(accountId);
    if (!running) return this.startLoad(accountId);
    let next = this.queued.get(accountId);
    if (!next) {
      next = running
        .catch(() => undefined)
        .then(() => {
          this.queued.delete(accountId);
          return this.startLoad(accountId);
        });
      this.queued.set(accountId, next);
    }
    return next;
  }

  private startLoad(accountId: number): Promise<AccountRouting> {
    const pending = this.load(accountId).finally(() => this.loading.delete(accountId));
    this.loading.set(accountId, pending);
    return pending;
  }

  /**
   * The account's routing data, reloaded when older than `ROUTING_TABLE_TTL_MS` or when its
   * warmup counts are of another UTC day than the clock's.
   */
  async account(accountId: number): Promise<AccountRouting> {
    const cached = this.accounts.get(accountId);
    if (
      cached &&
      performance.now() - cached.loadedAt < ROUTING_TABLE_TTL_MS &&
      cached.warmup.day === dayOfMs(this.deps.clock.now())
    )
      return cached;
    return this.refresh(accountId);
  }

  /** The sub-account's default pool id (`null`: none), cached like the tables; `fresh` reloads it. */
  async subAccountDefaultPool(accountId: number, subAccountId: number, fresh = false): Promise<number | null> {
    const cached = this.defaults.get(subAccountId);
    if (!fresh && cached && performance.now() - cached.loadedAt < ROUTING_TABLE_TTL_MS) return cached.poolId;
    const sub = await this.deps.store.subAccounts.get(accountId, subAccountId);
    const poolId = sub?.defaultIpPoolId ?? null;
    this.defaults.set(subAccountId, { poolId, loadedAt: performance.now() });
    return poolId;
  }

  /** Drops every cached table (`mailplane.close()`). */
  close(): void {
    this.accounts.clear();
    this.defaults.clear();
    this.loading.clear();
    this.queued.clear();
  }
}
