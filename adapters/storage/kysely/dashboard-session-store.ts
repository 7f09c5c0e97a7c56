import type { DashboardSessionRow, DashboardSessionStore } from '../../../src/store/dashboard-session-store.js';
import type { KyselyStoreContext } from './context.js';
import { toNumber } from './rows.js';

/** {@link DashboardSessionStore} on the `dashboard_sessions` table (migration 0023). */
export function kyselyDashboardSessionStore(ctx: KyselyStoreContext): DashboardSessionStore {
  return {
    async create(session) {
      await ctx.db
        .insertInto('dashboard_sessions')
        .values({
          id_hash: session.idHash,
          kind: session.kind,
          sealed_key: session.sealedKey,
          created_at: session.createdAt,
          expires_at: session.expiresAt,
        })
        .execute();
    },
    async find(idHash, now) {
      const row = await ctx.db
        .selectFrom('dashboard_sessions')
        .selectAll()
        .where('id_hash', '=', idHash)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (!row) return null;
      const session: DashboardSessionRow = {
        idHash: row.id_hash,
        kind: row.kind === 'account' ? 'account' : 'subaccount',
        sealedKey: row.sealed_key,
        createdAt: toNumber(row.created_at),
        expiresAt: toNumber(row.expires_at),
      };
      return session;
    },
    async delete(idHash) {
      await ctx.db.deleteFrom('dashboard_sessions').where('id_hash', '=', idHash).execute();
    },
    async prune(now, limit) {
      const result = await ctx.db
        .deleteFrom('dashboard_sessions')
        .where('id_hash', 'in', (eb) =>
          eb.selectFrom('dashboard_sessions').select('id_hash').where('expires_at', '<=', now).limit(limit),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
