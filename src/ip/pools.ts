import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import { isResourceId } from '../model/ids.js';
import type { ListQuery } from '../model/paging.js';
import { nowNs, type Clock } from '../model/time.js';
import { parseRoutingMetaData } from '../routing/metadata.js';
import type { IpPoolDetail, IpPoolInput, IpPoolRecord, IpPoolWriteFailure, MailplaneStore } from '../store/index.js';
import { canonicalAddresses } from './ips.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface PoolsDeps {
  readonly store: MailplaneStore;
  readonly clock: Clock;
}

/** A pool as a caller describes it; every field is optional on update (a missing one keeps its value). */
export interface PoolFields {
  name?: string;
  /** Addresses of IPs allocated to the account. */
  ips?: readonly string[];
  /** Ids of the account's TPSPs. */
  tpsps?: readonly number[];
  routingStrategy?: number;
  routingMetaData?: string;
  shouldOverflow?: boolean;
  /** Name of another pool of the account; `''` clears it. */
  overflowPoolName?: string;
  warmupInterval?: number;
}

/** Default hours between warmup stages. */
export const DEFAULT_WARMUP_INTERVAL = 24;

const notFound = (id: number | string) =>
  new NotFoundError('IPPOOL_NOT_FOUND', `no IP pool with id ${id} in this account`);
const invalid = (code: string, path: string, message: string, more: string[] = []) =>
  new ValidationError(
    `the body is not valid (${path}: ${message})`,
    [message, ...more].map((m) => ({ path, message: m })),
    code,
  );

/** Makes sure the account has its default system pool (accounts created before pools existed). */
export function ensureSystemPool(ctx: PoolsDeps, accountId: number): Promise<IpPoolDetail> {
  return ctx.store.ipPools.ensureSystemPool(accountId, nowNs(ctx.clock));
}

async function resolveIps(ctx: PoolsDeps, accountId: number, addresses: readonly string[]): Promise<number[]> {
  const canonical = canonicalAddresses(addresses, 'ips');
  const found = await ctx.store.ips.findByAddresses(accountId, canonical);
  const byAddress = new Map(found.map((ip) => [ip.publicIp, ip.id]));
  const missing = canonical.filter((address) => !byAddress.has(address));
  if (missing.length > 0) {
    throw invalid('IP_NOT_ALLOCATED', 'ips', `not allocated to this account: ${missing.slice(0, 10).join(', ')}`);
  }
  return canonical.map((address) => byAddress.get(address)!);
}

async function checkTpsps(ctx: PoolsDeps, accountId: number, ids: readonly number[]): Promise<number[]> {
  if (new Set(ids).size !== ids.length) throw invalid('DUPLICATE_TPSP', 'tpsps', 'a TPSP id is listed twice');
  const missing: number[] = [];
  // An id beyond what storage holds is unknown: asking PostgreSQL for it would be an error, not a miss.
  for (const id of ids) if (!isResourceId(id) || !(await ctx.store.tpsps.get(accountId, id))) missing.push(id);
  if (missing.length > 0)
    throw invalid('TPSP_NOT_FOUND', 'tpsps', `not TPSPs of this account: ${missing.slice(0, 10).join(', ')}`);
  return [...ids];
}

function writeFailure(reason: IpPoolWriteFailure, name: string): Error {
  switch (reason) {
    case 'duplicate-name':
      return new ConflictError('IPPOOL_NAME_TAKEN', `an IP pool named "${name}" already exists in this account`);
    case 'ip-in-other-pool':
      return new ForbiddenError(
        'IP_IN_OTHER_POOL',
        'an IP belongs to at most one pool; one of the IPs is in another pool',
      );
    case 'unknown-ip':
      return invalid('IP_NOT_ALLOCATED', 'ips', 'an IP is not allocated to this account');
    case 'unknown-tpsp':
      return invalid('TPSP_NOT_FOUND', 'tpsps', 'a TPSP is not one of this account');
    case 'unknown-overflow-pool':
      return invalid('OVERFLOW_POOL_NOT_FOUND', 'overflowPoolName', 'no such IP pool in this account');
    case 'overflow-cycle':
      return invalid(
        'OVERFLOW_CYCLE',
        'overflowPoolName',
        'following the overflow pools from there leads back to this pool',
      );
  }
}

/**
 * Turns the caller's fields, merged over `current` on update, into the store's input: resolves
 * addresses and the overflow pool name, and validates the routing metadata against the members.
 */
async function buildInput(
  ctx: PoolsDeps,
  accountId: number,
  fields: PoolFields,
  current: IpPoolDetail | null,
): Promise<IpPoolInput> {
  const name = fields.name ?? current!.pool.name;
  const ipIds = fields.ips ? await resolveIps(ctx, accountId, fields.ips) : (current?.ips.map((ip) => ip.id) ?? []);
  const tpspIds = fields.tpsps
    ? await checkTpsps(ctx, accountId, fields.tpsps)
    : (current?.tpsps.map((t) => t.id) ?? []);
  const routingStrategy = fields.routingStrategy ?? current?.pool.routingStrategy ?? 0;
  // Switching to round robin needs no metadata: `{}` is the only value it takes.
  const routingMetaData =
    fields.routingMetaData ?? (fields.routingStrategy === 0 ? '{}' : (current?.pool.routingMetaData ?? '{}'));
  const parsed = parseRoutingMetaData(routingStrategy, routingMetaData, {
    ipIds: new Set(ipIds),
    tpspIds: new Set(tpspIds),
  });
  if (!parsed.ok)
    throw invalid('INVALID_ROUTING_METADATA', 'routingMetaData', parsed.problems[0]!, parsed.problems.slice(1));

  const shouldOverflow = fields.shouldOverflow ?? current?.pool.shouldOverflow ?? false;
  const overflowName = fields.overflowPoolName ?? current?.overflowPoolName ?? '';
  let overflowPoolId: number | null = null;
  if (overflowName !== '') {
    if (overflowName.toLowerCase() === name.toLowerCase()) throw writeFailure('overflow-cycle', name);
    const target = await ctx.store.ipPools.findByName(accountId, overflowName);
    if (!target)
      throw invalid(
        'OVERFLOW_POOL_NOT_FOUND',
        'overflowPoolName',
        `no IP pool named "${overflowName}" in this account`,
      );
    overflowPoolId = target.id;
  } else if (shouldOverflow) {
    throw invalid(
      'OVERFLOW_POOL_REQUIRED',
      'overflowPoolName',
      'name the pool to overflow to when shouldOverflow is true',
    );
  }
  return {
    name,
    routingStrategy,
    routingMetaData,
    shouldOverflow,
    overflowPoolId,
    warmupInterval: fields.warmupInterval ?? current?.pool.warmupInterval ?? DEFAULT_WARMUP_INTERVAL,
    ipIds,
    tpspIds,
  };
}

/** Operations on the account's IP pools, as the `/account/ippool` endpoints use them. */
export const ipPoolService = {
  async create(ctx: PoolsDeps, accountId: number, fields: PoolFields & { name: string }): Promise<IpPoolDetail> {
    await ensureSystemPool(ctx, accountId);
    const input = await buildInput(ctx, accountId, fields, null);
    const outcome = await ctx.store.ipPools.create(accountId, input, nowNs(ctx.clock));
    if (!outcome.ok) throw writeFailure(outcome.reason, input.name);
    return outcome.value;
  },

  async list(ctx: PoolsDeps, accountId: number, query: ListQuery): Promise<IpPoolDetail[]> {
    await ensureSystemPool(ctx, accountId);
    return ctx.store.ipPools.list(accountId, query);
  },

  async get(ctx: PoolsDeps, accountId: number, id: number | null): Promise<IpPoolDetail> {
    await ensureSystemPool(ctx, accountId);
    const detail = id === null ? null : await ctx.store.ipPools.get(accountId, id);
    if (!detail) throw notFound(id ?? 'given');
    return detail;
  },

  /** Changes the given fields; the merged pool must be valid as a whole (members, metadata, overflow). */
  async update(ctx: PoolsDeps, accountId: number, id: number | null, fields: PoolFields): Promise<IpPoolDetail> {
    const current = await ipPoolService.get(ctx, accountId, id);
    if (current.pool.type === 0 && fields.name !== undefined && fields.name !== current.pool.name) {
      throw new ForbiddenError('SYSTEM_POOL_RENAME', `the default system pool keeps its name "${current.pool.name}"`);
    }
    const input = await buildInput(ctx, accountId, fields, current);
    const outcome = await ctx.store.ipPools.update(accountId, current.pool.id, input, nowNs(ctx.clock));
    if (outcome.ok) return outcome.value;
    throw outcome.reason === 'not-found' ? notFound(current.pool.id) : writeFailure(outcome.reason, input.name);
  },

  /**
   * Deletes a pool; its IPs become unassigned. The system pool cannot be deleted, nor a pool that
   * another pool overflows to (403 both).
   */
  async delete(ctx: PoolsDeps, accountId: number, id: number | null): Promise<IpPoolRecord> {
    await ensureSystemPool(ctx, accountId);
    if (id === null) throw notFound('given');
    const outcome = await ctx.store.ipPools.delete(accountId, id);
    if (outcome.ok) return outcome.value;
    if (outcome.reason === 'not-found') throw notFound(id);
    if (outcome.reason === 'system-pool') {
      throw new ForbiddenError('SYSTEM_POOL_UNDELETABLE', 'the default system pool cannot be deleted');
    }
    throw new ForbiddenError(
      'IPPOOL_IS_OVERFLOW_TARGET',
      'another pool overflows to this pool; change its overflowPoolName first',
    );
  },
};
