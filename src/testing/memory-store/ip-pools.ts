import { failure, success } from '../../store/outcome.js';
import {
  SYSTEM_POOL_NAME,
  type IpPoolDetail,
  type IpPoolInput,
  type IpPoolRecord,
  type IpPoolStore,
  type IpPoolWriteFailure,
} from '../../store/ip-pool-store.js';
import type { EpochNs } from '../../model/time.js';
import { byId, contains, page, requireParent, toRecord, type MemoryContext } from './common.js';
import type { IpPoolRow } from './rows.js';
import type { TableRows } from './tables.js';

const owned = (tables: TableRows, accountId: number, id: number): IpPoolRow | undefined => {
  const row = tables.ipPools.get(id);
  return row?.accountId === accountId ? row : undefined;
};

const nameTaken = (tables: TableRows, accountId: number, name: string, exceptId?: number) =>
  [...tables.ipPools.values()].some(
    (p) => p.accountId === accountId && p.id !== exceptId && p.name.toLowerCase() === name.toLowerCase(),
  );

/** A pool with its members and its overflow pool's name. */
function detail(tables: TableRows, row: IpPoolRow): IpPoolDetail {
  const pool: IpPoolRecord = toRecord(row);
  const overflow = pool.overflowPoolId === null ? undefined : owned(tables, pool.accountId, pool.overflowPoolId);
  const ips = [...tables.poolIps.values()].filter((m) => m.poolId === pool.id).map((m) => tables.ips.get(m.ipId)!);
  const tpsps = [...tables.poolTpsps.values()]
    .filter((m) => m.poolId === pool.id)
    .map((m) => tables.tpsps.get(m.tpspId)!);
  return {
    pool,
    overflowPoolName: overflow?.name ?? '',
    ips: byId(ips).map((ip) => toRecord(ip)),
    tpsps: byId(tpsps).map((t) => toRecord(t)),
  };
}

/** The reference checks of a pool write, in the Kysely store's order. `poolId` is `null` on create. */
function checkReferences(
  tables: TableRows,
  accountId: number,
  poolId: number | null,
  input: IpPoolInput,
): IpPoolWriteFailure | null {
  const ipIds = [...new Set(input.ipIds)];
  if (ipIds.some((id) => tables.ips.get(id)?.accountId !== accountId)) return 'unknown-ip';
  if (
    ipIds.some((id) => {
      const member = tables.poolIps.get(id);
      return member !== undefined && member.poolId !== poolId;
    })
  ) {
    return 'ip-in-other-pool';
  }
  if ([...new Set(input.tpspIds)].some((id) => tables.tpsps.get(id)?.accountId !== accountId)) return 'unknown-tpsp';
  if (input.overflowPoolId !== null) {
    if (input.overflowPoolId === poolId) return 'overflow-cycle';
    if (!owned(tables, accountId, input.overflowPoolId)) return 'unknown-overflow-pool';
    // Following the chain from the target must never reach this pool again.
    const seen = new Set<number>();
    for (
      let at: number | null = input.overflowPoolId;
      at !== null && !seen.has(at);
      at = owned(tables, accountId, at)?.overflowPoolId ?? null
    ) {
      if (at === poolId) return 'overflow-cycle';
      seen.add(at);
    }
  }
  return null;
}

/** Replaces the pool's members with the input's. */
function writeMembers(tables: TableRows, poolId: number, input: IpPoolInput): void {
  for (const m of [...tables.poolIps.values()]) if (m.poolId === poolId) tables.poolIps.delete(m.key);
  for (const m of [...tables.poolTpsps.values()]) if (m.poolId === poolId) tables.poolTpsps.delete(m.key);
  for (const ipId of new Set(input.ipIds)) tables.poolIps.set(ipId, { key: ipId, poolId, ipId });
  for (const tpspId of new Set(input.tpspIds)) {
    const key = `${poolId}\u0000${tpspId}`;
    tables.poolTpsps.set(key, { key, poolId, tpspId });
  }
}

function poolRow(
  id: number,
  accountId: number,
  input: IpPoolInput,
  type: 0 | 1,
  created: EpochNs,
  updated: EpochNs,
): IpPoolRow {
  return {
    key: id,
    id,
    accountId,
    name: input.name,
    type,
    routingStrategy: input.routingStrategy,
    routingMetaData: input.routingMetaData,
    shouldOverflow: input.shouldOverflow,
    overflowPoolId: input.overflowPoolId,
    warmupInterval: input.warmupInterval,
    created,
    updated,
  };
}

const SYSTEM_POOL: IpPoolInput = {
  name: SYSTEM_POOL_NAME,
  routingStrategy: 0,
  routingMetaData: '{}',
  shouldOverflow: false,
  overflowPoolId: null,
  warmupInterval: 24,
  ipIds: [],
  tpspIds: [],
};

/** {@link IpPoolStore} of the in-memory store. */
export function memoryIpPoolStore(ctx: MemoryContext): IpPoolStore {
  return {
    ensureSystemPool: (accountId, created) =>
      ctx.write((tables) => {
        let row = byId(tables.ipPools.values()).find((p) => p.accountId === accountId && p.type === 0);
        if (!row) {
          requireParent(tables.accounts.has(accountId), `account ${accountId}`);
          if (nameTaken(tables, accountId, SYSTEM_POOL_NAME)) {
            throw new Error(
              `the system pool of account ${accountId} could not be created: the name ${SYSTEM_POOL_NAME} is taken`,
            );
          }
          row = poolRow(ctx.nextId('ipPools'), accountId, SYSTEM_POOL, 0, created, created);
          tables.ipPools.set(row.id, row);
        }
        return detail(tables, row);
      }),

    create: (accountId, input, created) =>
      ctx.write((tables) => {
        requireParent(tables.accounts.has(accountId), `account ${accountId}`);
        const problem = checkReferences(tables, accountId, null, input);
        if (problem) return failure(problem);
        if (nameTaken(tables, accountId, input.name)) return failure('duplicate-name');
        const row = poolRow(ctx.nextId('ipPools'), accountId, input, 1, created, created);
        tables.ipPools.set(row.id, row);
        writeMembers(tables, row.id, input);
        return success(detail(tables, row));
      }),

    get: (accountId, id) =>
      ctx.read((tables) => {
        const row = owned(tables, accountId, id);
        return row ? detail(tables, row) : null;
      }),

    findByName: (accountId, name) =>
      ctx.read((tables) => {
        const row = [...tables.ipPools.values()].find(
          (p) => p.accountId === accountId && p.name.toLowerCase() === name.toLowerCase(),
        );
        return row ? toRecord(row) : null;
      }),

    list: (accountId, query) =>
      ctx.read((tables) =>
        page(
          [...tables.ipPools.values()].filter((p) => p.accountId === accountId && contains(p.name, query.search)),
          query,
        ).map((row) => detail(tables, row)),
      ),

    update: (accountId, id, input, updated) =>
      ctx.write((tables) => {
        const row = owned(tables, accountId, id);
        if (!row) return failure('not-found');
        if (nameTaken(tables, accountId, input.name, id)) return failure('duplicate-name');
        const problem = checkReferences(tables, accountId, id, input);
        if (problem) return failure(problem);
        const next = poolRow(id, accountId, input, row.type, row.created, updated);
        tables.ipPools.set(id, next);
        writeMembers(tables, id, input);
        return success(detail(tables, next));
      }),

    delete: (accountId, id) =>
      ctx.write((tables) => {
        const row = owned(tables, accountId, id);
        if (!row) return failure('not-found');
        if (row.type === 0) return failure('system-pool');
        if ([...tables.ipPools.values()].some((p) => p.accountId === accountId && p.overflowPoolId === id))
          return failure('overflow-target');
        // Sub-accounts that sent from it by default fall back to the system pool; IPs and TPSPs stay, unassigned.
        for (const s of [...tables.subAccounts.values()]) {
          if (s.accountId === accountId && s.defaultIpPoolId === id)
            tables.subAccounts.set(s.id, { ...s, defaultIpPoolId: null });
        }
        writeMembers(tables, id, { ...SYSTEM_POOL, ipIds: [], tpspIds: [] });
        tables.ipPools.delete(id);
        return success(toRecord(row));
      }),
  };
}
