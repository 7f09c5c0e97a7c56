/**
 * One routing decision per message: the pool (the request's `ippool` by name, else the
 * sub-account's default, else the Shared system pool), the entity its strategy picks among those
 * that can send, and overflow when the pool cannot take the message. Pure apart from the
 * strategies' counters held in the {@link RoutingTable}; delivery loads the pools, classifies the
 * recipient and reads warmup counters, then asks {@link routeMessage}.
 */
import { IpPoolType, IpState, type IpPoolDetail } from '../store/ip-pool-store.js';
import { formatRoutingEntity, parseRoutingMetaData, type RoutingEntity } from './metadata.js';
import { resolveOverflow, type WaitReason } from './overflow.js';
import { normalizeDomain } from './providers.js';
import {
  createRoutingStrategy,
  EntityStatus,
  type Availability,
  type RoutingState,
  type RoutingStrategy,
} from './strategies.js';

/** A pool ready for routing: its strategy with live counters and what decisions need to name. */
export interface RoutingPool {
  id: number;
  name: string;
  shouldOverflow: boolean;
  overflowPoolId: number | null;
  strategy: RoutingStrategy;
  state: RoutingState;
  /** Addresses of the member IPs by id. */
  ipAddresses: ReadonlyMap<number, string>;
  /** The Shared system pool while it holds nothing: mail leaves from the host's default address. */
  hostDefault: boolean;
  /** Members and metadata, to tell whether a reload changed the pool (and its counters must restart). */
  signature: string;
  /** Set when the stored metadata no longer parses: the pool routes round robin meanwhile. */
  metadataProblems: string[];
}

/** An account's pools for routing. */
export interface RoutingTable {
  pools: ReadonlyMap<number, RoutingPool>;
  /** Pool ids by lower-cased name. */
  byName: ReadonlyMap<string, number>;
  /** The Shared system pool (type 0). */
  systemPoolId: number;
}

/** Where the message leaves from. */
export type RoutedEntity =
  { kind: 'ip'; id: number; address: string } | { kind: 'tpsp'; id: number } | { kind: 'host' };

/** What {@link routeMessage} needs to know about one message. */
export interface RouteRequest {
  /** The send's `ippool`; `undefined` or `''` when it named none. */
  poolName?: string | undefined;
  /** The sub-account's default pool, `null` when it has none (the system pool then). */
  subAccountDefaultPoolId?: number | null | undefined;
  /** The recipient's mailbox-provider id (0-11). */
  provider: number;
  /** The From domain. */
  fromDomain: string;
  /** Which entities can send now; omitted: all of them. */
  availability?: Availability | undefined;
}

/** The decision: who sends, why the message waits, or that the named pool does not exist. */
export type RouteDecision =
  | { ok: true; pool: { id: number; name: string }; entity: RoutedEntity; overflowed: boolean; tried: number[] }
  | { ok: false; wait: WaitReason }
  | { ok: false; unknownPool: string };

/** Builds the routing form of one stored pool. */
export function routingPoolFrom(detail: IpPoolDetail): RoutingPool {
  const { pool, ips, tpsps } = detail;
  const members: RoutingEntity[] = [
    ...ips.map((ip) => ({ kind: 'ip' as const, id: ip.id })),
    ...tpsps.map((tpsp) => ({ kind: 'tpsp' as const, id: tpsp.id })),
  ];
  const parsed = parseRoutingMetaData(pool.routingStrategy, pool.routingMetaData, {
    ipIds: new Set(ips.map((ip) => ip.id)),
    tpspIds: new Set(tpsps.map((tpsp) => tpsp.id)),
  });
  // Writes validate metadata against members atomically, so this only happens with hand-edited
  // rows; sending evenly beats refusing to send, and the problems are kept for logs.
  const strategy = createRoutingStrategy(members, parsed.ok ? parsed.value : { strategy: 0 });
  return {
    id: pool.id,
    name: pool.name,
    shouldOverflow: pool.shouldOverflow,
    overflowPoolId: pool.overflowPoolId,
    strategy,
    state: strategy.newState(),
    ipAddresses: new Map(ips.map((ip) => [ip.id, ip.publicIp])),
    hostDefault: pool.type === IpPoolType.Shared && members.length === 0,
    signature: JSON.stringify([
      pool.routingStrategy,
      pool.routingMetaData,
      members.map(formatRoutingEntity),
      ips.map((ip) => ip.publicIp),
    ]),
    metadataProblems: parsed.ok ? [] : parsed.problems,
  };
}

/**
 * Builds an account's routing table from its stored pools. Pass the previous table to keep the
 * counters of pools whose members and metadata did not change, so a reload does not restart
 * their round robin or volume schedule.
 *
 * @example
 * let table = createRoutingTable(await store.ipPools.list(accountId, { limit: 1000, offset: 0 }));
 * table = createRoutingTable(reloaded, table);
 */
export function createRoutingTable(details: readonly IpPoolDetail[], previous?: RoutingTable): RoutingTable {
  const pools = new Map<number, RoutingPool>();
  const byName = new Map<string, number>();
  let systemPoolId = -1;
  for (const detail of details) {
    let pool = routingPoolFrom(detail);
    const old = previous?.pools.get(pool.id);
    if (old && old.signature === pool.signature) pool = { ...pool, strategy: old.strategy, state: old.state };
    pools.set(pool.id, pool);
    byName.set(pool.name.toLowerCase(), pool.id);
    if (detail.pool.type === IpPoolType.Shared) systemPoolId = pool.id;
  }
  if (systemPoolId < 0)
    throw new Error('createRoutingTable: the account has no Shared system pool (ensureSystemPool first)');
  return { pools, byName, systemPoolId };
}

/**
 * Item 1 of pool selection: the pool named by the request (case-insensitively; an unknown name is
 * refused: `422` at send time), else the sub-account's default pool, else the system pool. A
 * default that no longer exists falls back to the system pool, as deleting a pool does.
 */
export function selectPool(
  table: RoutingTable,
  request: Pick<RouteRequest, 'poolName' | 'subAccountDefaultPoolId'>,
): { ok: true; poolId: number } | { ok: false; unknownPool: string } {
  if (request.poolName !== undefined && request.poolName !== '') {
    const id = table.byName.get(request.poolName.toLowerCase());
    return id === undefined ? { ok: false, unknownPool: request.poolName } : { ok: true, poolId: id };
  }
  const fallback = request.subAccountDefaultPoolId;
  if (fallback !== null && fallback !== undefined && table.pools.has(fallback)) return { ok: true, poolId: fallback };
  return { ok: true, poolId: table.systemPoolId };
}

/**
 * Routes one message: selects the pool, picks an entity with the pool's strategy among those that
 * can send, and follows overflow when the pool cannot take it. Advances the counters of the pool
 * that sends (and of no other).
 *
 * @example
 * const decision = routeMessage(table, { poolName: 'Transactional', provider: 0, fromDomain: 'example.com' });
 * if (decision.ok) send(decision.entity); else if ('wait' in decision) deferUntilCapacity(decision.wait);
 */
export function routeMessage(table: RoutingTable, request: RouteRequest): RouteDecision {
  const selected = selectPool(table, request);
  if (!selected.ok) return selected;
  const input = {
    provider: request.provider,
    fromDomain: normalizeDomain(request.fromDomain),
    availability: request.availability,
  };
  const result = resolveOverflow<RoutedEntity>(
    selected.poolId,
    (id) => table.pools.get(id),
    (id) => {
      const pool = table.pools.get(id)!;
      if (pool.hostDefault) return { kind: 'host' };
      const picked = pool.strategy.pick(input, pool.state);
      if ('blocked' in picked) return picked;
      return picked.kind === 'ip'
        ? { kind: 'ip', id: picked.id, address: pool.ipAddresses.get(picked.id) ?? '' }
        : { kind: 'tpsp', id: picked.id };
    },
  );
  if (!result.ok) return result;
  const pool = table.pools.get(result.poolId)!;
  return {
    ok: true,
    pool: { id: pool.id, name: pool.name },
    entity: result.value,
    overflowed: result.tried.length > 1,
    tried: result.tried,
  };
}

/**
 * Whether an IP can take a message to a provider now: a paused IP never; a warming IP while its
 * count for the provider today is below the plan's cap (`capFor`); an active IP always.
 */
export function ipStatus(state: IpState, cap: number, sentToday: number): EntityStatus {
  if (state === IpState.Paused) return EntityStatus.Paused;
  if (state === IpState.Warming) return warmupStatus(cap, sentToday);
  return EntityStatus.Ready;
}

/** Whether an IP under warmup can take one more message to a provider today. */
export function warmupStatus(cap: number, sentToday: number): EntityStatus {
  return sentToday < cap ? EntityStatus.Ready : EntityStatus.AtCap;
}
