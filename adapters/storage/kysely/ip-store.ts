import { failure, success } from '../../../src/store/outcome.js';
import type { IpRecord, IpStore } from '../../../src/store/index.js';
import { atomically, type KyselyStoreContext } from './context.js';
import { containsText } from './dialect.js';
import { lockAccountPools, toIp } from './ip-rows.js';
import { fromBool } from './rows.js';
import type { IpsTable } from './tables/ip-pools.js';

/** Thrown inside the allocation transaction to roll it back; never escapes {@link kyselyIpStore}. */
class AlreadyAllocated extends Error {
  constructor(readonly address: string) {
    super(`already allocated: ${address}`);
  }
}

/** {@link IpStore} on Kysely. */
export function kyselyIpStore(ctx: KyselyStoreContext): IpStore {
  const { db } = ctx;
  return {
    async allocate(accountId, ips) {
      try {
        return await atomically(ctx, async (trx) => {
          const created: IpRecord[] = [];
          for (const ip of ips) {
            const row = await trx
              .insertInto('ips')
              .values({
                account_id: accountId,
                public_ip: ip.publicIp,
                reverse_dns_hostname: ip.reverseDnsHostname,
                type: ip.type,
                state: ip.state,
                auto_warmup_enabled: fromBool(ip.autoWarmupEnabled),
                warmup_started_at: ip.warmupStartedAt,
                created: ip.created,
                updated: ip.created,
              })
              // Both unique indexes (the address store-wide, and per account) end here: the conflict
              // waits for a concurrent allocation's transaction and then inserts nothing.
              .onConflict((oc) => oc.doNothing())
              .returningAll()
              .executeTakeFirst();
            if (!row) {
              // Inside a caller's transaction the rows inserted so far must go explicitly: the
              // caller decides about its transaction, not this store.
              if (ctx.inTransaction && created.length > 0) {
                await trx
                  .deleteFrom('ips')
                  .where(
                    'id',
                    'in',
                    created.map((c) => c.id),
                  )
                  .execute();
              }
              throw new AlreadyAllocated(ip.publicIp);
            }
            created.push(toIp(row));
          }
          return success(created);
        });
      } catch (error) {
        if (error instanceof AlreadyAllocated)
          return { ok: false, reason: 'already-allocated', address: error.address };
        throw error;
      }
    },

    async get(accountId, id) {
      const row = await db
        .selectFrom('ips')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toIp(row) : null;
    },

    async list(accountId, query) {
      let select = db.selectFrom('ips').selectAll().where('account_id', '=', accountId);
      if (query.search !== undefined) select = select.where(containsText('public_ip', query.search));
      const rows = await select.orderBy('id').limit(query.limit).offset(query.offset).execute();
      return rows.map(toIp);
    },

    async findByAddresses(accountId, addresses) {
      if (addresses.length === 0) return [];
      const rows = await db
        .selectFrom('ips')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('public_ip', 'in', [...addresses])
        .orderBy('id')
        .execute();
      return rows.map(toIp);
    },

    async update(accountId, id, patch) {
      const values: Partial<Record<keyof IpsTable, unknown>> = { updated: patch.updated };
      if (patch.reverseDnsHostname !== undefined) values.reverse_dns_hostname = patch.reverseDnsHostname;
      if (patch.state !== undefined) values.state = patch.state;
      if (patch.autoWarmupEnabled !== undefined) values.auto_warmup_enabled = fromBool(patch.autoWarmupEnabled);
      if (patch.warmupStartedAt !== undefined) values.warmup_started_at = patch.warmupStartedAt;
      const row = await db
        .updateTable('ips')
        .set(values as never)
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toIp(row) : null;
    },

    delete(accountId, id) {
      return atomically(ctx, async (trx) => {
        await lockAccountPools(ctx, trx, accountId);
        const row = await trx
          .selectFrom('ips')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('id', '=', id)
          .executeTakeFirst();
        if (!row) return failure('not-found');
        const member = await trx.selectFrom('ip_pool_ips').select('pool_id').where('ip_id', '=', id).executeTakeFirst();
        if (member) return failure('in-pool');
        await trx.deleteFrom('ips').where('id', '=', id).execute();
        return success(toIp(row));
      });
    },
  };
}
