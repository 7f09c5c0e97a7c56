import { failure, success } from '../../../src/store/outcome.js';
import type { TpspStore } from '../../../src/store/index.js';
import { atomically, type KyselyStoreContext } from './context.js';
import { containsText } from './dialect.js';
import { lockAccountPools, nameKey, toTpsp } from './ip-rows.js';
import type { TpspsTable } from './tables/ip-pools.js';

/** {@link TpspStore} on Kysely. */
export function kyselyTpspStore(ctx: KyselyStoreContext): TpspStore {
  const { db } = ctx;
  return {
    async create(input) {
      // ON CONFLICT DO NOTHING: a failed statement would abort a caller's PostgreSQL transaction.
      const row = await db
        .insertInto('tpsps')
        .values({
          account_id: input.accountId,
          name: input.name,
          name_key: nameKey(input.name),
          kind: input.kind,
          host: input.host,
          port: input.port,
          security: input.security,
          username: input.username,
          password_sealed: input.passwordSealed,
          created: input.created,
          updated: input.created,
        })
        .onConflict((oc) => oc.doNothing())
        .returningAll()
        .executeTakeFirst();
      return row ? success(toTpsp(row)) : failure('duplicate-name');
    },

    async get(accountId, id) {
      const row = await db
        .selectFrom('tpsps')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toTpsp(row) : null;
    },

    async list(accountId, query) {
      let select = db.selectFrom('tpsps').selectAll().where('account_id', '=', accountId);
      if (query.search !== undefined) select = select.where(containsText('name_key', query.search));
      const rows = await select.orderBy('id').limit(query.limit).offset(query.offset).execute();
      return rows.map(toTpsp);
    },

    update(accountId, id, patch) {
      return atomically(ctx, async (trx) => {
        // Serialised per account so the name check below cannot race another rename.
        await lockAccountPools(ctx, trx, accountId);
        const values: Partial<Record<keyof TpspsTable, unknown>> = { updated: patch.updated };
        if (patch.name !== undefined) {
          const taken = await trx
            .selectFrom('tpsps')
            .select('id')
            .where('account_id', '=', accountId)
            .where('name_key', '=', nameKey(patch.name))
            .where('id', '!=', id)
            .executeTakeFirst();
          if (taken) return failure('duplicate-name');
          values.name = patch.name;
          values.name_key = nameKey(patch.name);
        }
        if (patch.kind !== undefined) values.kind = patch.kind;
        if (patch.host !== undefined) values.host = patch.host;
        if (patch.port !== undefined) values.port = patch.port;
        if (patch.security !== undefined) values.security = patch.security;
        if (patch.username !== undefined) values.username = patch.username;
        if (patch.passwordSealed !== undefined) values.password_sealed = patch.passwordSealed;
        const row = await trx
          .updateTable('tpsps')
          .set(values as never)
          .where('account_id', '=', accountId)
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirst();
        return row ? success(toTpsp(row)) : failure('not-found');
      });
    },

    delete(accountId, id) {
      return atomically(ctx, async (trx) => {
        await lockAccountPools(ctx, trx, accountId);
        const row = await trx
          .selectFrom('tpsps')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('id', '=', id)
          .executeTakeFirst();
        if (!row) return failure('not-found');
        const member = await trx
          .selectFrom('ip_pool_tpsps')
          .select('pool_id')
          .where('tpsp_id', '=', id)
          .executeTakeFirst();
        if (member) return failure('in-pool');
        await trx.deleteFrom('tpsps').where('id', '=', id).execute();
        return success(toTpsp(row));
      });
    },
  };
}
