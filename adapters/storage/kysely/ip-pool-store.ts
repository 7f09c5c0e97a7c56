import type { Kysely } from 'kysely';
import { failure, success } from '../../../src/store/outcome.js';
import {
  SYSTEM_POOL_NAME,
  type IpPoolDetail,
  type IpPoolInput,
  type IpPoolRecord,
  type IpPoolStore,
  type IpPoolWriteFailure,
} from '../../../src/store/ip-pool-store.js';
import type { Outcome } from '../../../src/store/outcome.js';
import { atomically, type KyselyStoreContext } from './context.js';
import { containsText } from './dialect.js';
import { lockAccountPools, nameKey, toIp, toPool, toTpsp } from './ip-rows.js';
import { fromBool } from './rows.js';
import type { Database } from './schema.js';

export { kyselyIpStore } from './ip-store.js';
export { kyselyTpspStore } from './tpsp-store.js';

type Db = Kysely<Database>;

/** Members and overflow names of the given pools, in one query per table. */
async function withDetails(db: Db, accountId: number, pools: IpPoolRecord[]): Promise<IpPoolDetail[]> {
  if (pools.length === 0) return [];
  const ids = pools.map((p) => p.id);
  const ipRows = await db
    .selectFrom('ip_pool_ips')
    .innerJoin('ips', 'ips.id', 'ip_pool_ips.ip_id')
    .selectAll('ips')
    .select('ip_pool_ips.pool_id')
    .where('ip_pool_ips.pool_id', 'in', ids)
    .orderBy('ips.id')
    .execute();
  const tpspRows = await db
    .selectFrom('ip_pool_tpsps')
    .innerJoin('tpsps', 'tpsps.id', 'ip_pool_tpsps.tpsp_id')
    .selectAll('tpsps')
    .select('ip_pool_tpsps.pool_id')
    .where('ip_pool_tpsps.pool_id', 'in', ids)
    .orderBy('tpsps.id')
    .execute();
  const overflowIds = pools.map((p) => p.overflowPoolId).filter((id): id is number => id !== null);
  const names = new Map<number, string>();
  if (overflowIds.length > 0) {
    const rows = await db
      .selectFrom('ip_pools')
      .select(['id', 'name'])
      .where('account_id', '=', accountId)
      .where('id', 'in', overflowIds)
      .execute();
    for (const row of rows) names.set(Number(row.id), row.name);
  }
  return pools.map((pool) => ({
    pool,
    overflowPoolName: pool.overflowPoolId === null ? '' : (names.get(pool.overflowPoolId) ?? ''),
    ips: ipRows.filter((r) => Number(r.pool_id) === pool.id).map(toIp),
    tpsps: tpspRows.filter((r) => Number(r.pool_id) === pool.id).map(toTpsp),
  }));
}

async function getDetail(db: Db, accountId: number, id: number): Promise<IpPoolDetail | null> {
  const row = await db
    .selectFrom('ip_pools')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return null;
  const [detail] = await withDetails(db, accountId, [toPool(row)]);
  return detail ?? null;
}

/**
 * The reference checks of a pool write, made inside the write's transaction after the account's
 * pool writes are serialised. `poolId` is the pool being updated (`null` on create).
 */
async function checkReferences(
  db: Db,
  accountId: number,
  poolId: number | null,
  input: IpPoolInput,
): Promise<IpPoolWriteFailure | null> {
  const ipIds = [...new Set(input.ipIds)];
  const tpspIds = [...new Set(input.tpspIds)];
  if (ipIds.length > 0) {
    const owned = await db
      .selectFrom('ips')
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', 'in', ipIds)
      .execute();
    if (owned.length !== ipIds.length) return 'unknown-ip';
    let elsewhere = db.selectFrom('ip_pool_ips').select('ip_id').where('ip_id', 'in', ipIds);
    if (poolId !== null) elsewhere = elsewhere.where('pool_id', '!=', poolId);
    if (await elsewhere.executeTakeFirst()) return 'ip-in-other-pool';
  }
  if (tpspIds.length > 0) {
    const owned = await db
      .selectFrom('tpsps')
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', 'in', tpspIds)
      .execute();
    if (owned.length !== tpspIds.length) return 'unknown-tpsp';
  }
  if (input.overflowPoolId !== null) {
    if (input.overflowPoolId === poolId) return 'overflow-cycle';
    const links = await db
      .selectFrom('ip_pools')
      .select(['id', 'overflow_pool_id'])
      .where('account_id', '=', accountId)
      .execute();
    const next = new Map(
      links.map((l) => [Number(l.id), l.overflow_pool_id === null ? null : Number(l.overflow_pool_id)]),
    );
    if (!next.has(input.overflowPoolId)) return 'unknown-overflow-pool';
    // Follow the chain from the target; reaching this pool again would loop forever.
    const seen = new Set<number>();
    for (let at: number | null | undefined = input.overflowPoolId; at !== null && at !== undefined; at = next.get(at)) {
      if (at === poolId) return 'overflow-cycle';
      if (seen.has(at)) break;
      seen.add(at);
    }
  }
  return null;
}

async function writeMembers(db: Db, poolId: number, input: IpPoolInput): Promise<void> {
  await db.deleteFrom('ip_pool_ips').where('pool_id', '=', poolId).execute();
  await db.deleteFrom('ip_pool_tpsps').where('pool_id', '=', poolId).execute();
  const ipIds = [...new Set(input.ipIds)];
  const tpspIds = [...new Set(input.tpspIds)];
  if (ipIds.length > 0) {
    await db
      .insertInto('ip_pool_ips')
      .values(ipIds.map((ip_id) => ({ pool_id: poolId, ip_id })))
      .execute();
  }
  if (tpspIds.length > 0) {
    await db
      .insertInto('ip_pool_tpsps')
      .values(tpspIds.map((tpsp_id) => ({ pool_id: poolId, tpsp_id })))
      .execute();
  }
}

function poolValues(input: IpPoolInput) {
  return {
    name: input.name,
    name_key: nameKey(input.name),
    routing_strategy: input.routingStrategy,
    routing_meta_data: input.routingMetaData,
    should_overflow: fromBool(input.shouldOverflow),
    overflow_pool_id: input.overflowPoolId,
    warmup_interval: input.warmupInterval,
  };
}

/** {@link IpPoolStore} on Kysely. */
export function kyselyIpPoolStore(ctx: KyselyStoreContext): IpPoolStore {
  const { db } = ctx;
  return {
    ensureSystemPool(accountId, created) {
      return atomically(ctx, async (trx) => {
        const find = () =>
          trx
            .selectFrom('ip_pools')
            .selectAll()
            .where('account_id', '=', accountId)
            .where('type', '=', 0)
            .orderBy('id')
            .limit(1)
            .executeTakeFirst();
        let row = await find();
        if (!row) {
          // The name is unique per account, so concurrent ensures insert one row between them.
          await trx
            .insertInto('ip_pools')
            .values({
              account_id: accountId,
              ...poolValues({
                name: SYSTEM_POOL_NAME,
                routingStrategy: 0,
                routingMetaData: '{}',
                shouldOverflow: false,
                overflowPoolId: null,
                warmupInterval: 24,
                ipIds: [],
                tpspIds: [],
              }),
              type: 0,
              created,
              updated: created,
            })
            .onConflict((oc) => oc.doNothing())
            .execute();
          row = await find();
        }
        if (!row)
          throw new Error(
            `the system pool of account ${accountId} could not be created: the name ${SYSTEM_POOL_NAME} is taken`,
          );
        const [detail] = await withDetails(trx, accountId, [toPool(row)]);
        return detail!;
      });
    },

    create(accountId, input, created): Promise<Outcome<IpPoolDetail, IpPoolWriteFailure>> {
      return atomically(ctx, async (trx) => {
        await lockAccountPools(ctx, trx, accountId);
        const problem = await checkReferences(trx, accountId, null, input);
        if (problem) return failure(problem);
        const row = await trx
          .insertInto('ip_pools')
          .values({ account_id: accountId, ...poolValues(input), type: 1, created, updated: created })
          .onConflict((oc) => oc.doNothing())
          .returningAll()
          .executeTakeFirst();
        if (!row) return failure('duplicate-name');
        const pool = toPool(row);
        await writeMembers(trx, pool.id, input);
        return success((await getDetail(trx, accountId, pool.id))!);
      });
    },

    get(accountId, id) {
      return getDetail(db, accountId, id);
    },

    async findByName(accountId, name) {
      const row = await db
        .selectFrom('ip_pools')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('name_key', '=', nameKey(name))
        .executeTakeFirst();
      return row ? toPool(row) : null;
    },

    async list(accountId, query) {
      let select = db.selectFrom('ip_pools').selectAll().where('account_id', '=', accountId);
      if (query.search !== undefined) select = select.where(containsText('name_key', query.search));
      const rows = await select.orderBy('id').limit(query.limit).offset(query.offset).execute();
      return withDetails(db, accountId, rows.map(toPool));
    },

    update(accountId, id, input, updated) {
      return atomically(ctx, async (trx) => {
        await lockAccountPools(ctx, trx, accountId);
        const current = await trx
          .selectFrom('ip_pools')
          .select('id')
          .where('account_id', '=', accountId)
          .where('id', '=', id)
          .executeTakeFirst();
        if (!current) return failure('not-found');
        const taken = await trx
          .selectFrom('ip_pools')
          .select('id')
          .where('account_id', '=', accountId)
          .where('name_key', '=', nameKey(input.name))
          .where('id', '!=', id)
          .executeTakeFirst();
        if (taken) return failure('duplicate-name');
        const problem = await checkReferences(trx, accountId, id, input);
        if (problem) return failure(problem);
        await trx
          .updateTable('ip_pools')
          .set({ ...poolValues(input), updated })
          .where('account_id', '=', accountId)
          .where('id', '=', id)
          .execute();
        await writeMembers(trx, id, input);
        return success((await getDetail(trx, accountId, id))!);
      });
    },

    delete(accountId, id) {
      return atomically(ctx, async (trx) => {
        await lockAccountPools(ctx, trx, accountId);
        const row = await trx
          .selectFrom('ip_pools')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('id', '=', id)
          .executeTakeFirst();
        if (!row) return failure('not-found');
        const pool = toPool(row);
        if (pool.type === 0) return failure('system-pool');
        const source = await trx
          .selectFrom('ip_pools')
          .select('id')
          .where('account_id', '=', accountId)
          .where('overflow_pool_id', '=', id)
          .executeTakeFirst();
        if (source) return failure('overflow-target');
        // Memberships go explicitly (SQLite cascades only with the foreign_keys pragma); the IPs
        // and TPSPs themselves stay, unassigned.
        // Sub-accounts that sent from it by default fall back to the system pool.
        await trx
          .updateTable('sub_accounts')
          .set({ default_ip_pool_id: null })
          .where('account_id', '=', accountId)
          .where('default_ip_pool_id', '=', id)
          .execute();
        await trx.deleteFrom('ip_pool_ips').where('pool_id', '=', id).execute();
        await trx.deleteFrom('ip_pool_tpsps').where('pool_id', '=', id).execute();
        await trx.deleteFrom('ip_pools').where('id', '=', id).execute();
        return success(pool);
      });
    },
  };
}
