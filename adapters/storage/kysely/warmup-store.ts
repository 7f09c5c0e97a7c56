import { sql } from 'kysely';
import type { WarmupStore, WarmupTrafficIncrement } from '../../../src/store/index.js';
import type { KyselyStoreContext } from './context.js';
import { toBigint, toNumber } from './rows.js';

/** True when `error` is a foreign-key violation in either dialect. */
function isForeignKeyViolation(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/** Sums increments that hit the same row, so one statement never touches a row twice (PostgreSQL forbids it). */
function merge<K extends string>(entries: readonly WarmupTrafficIncrement[], keyOf: (e: WarmupTrafficIncrement) => K) {
  const rows = new Map<K, WarmupTrafficIncrement>();
  for (const entry of entries) {
    const key = keyOf(entry);
    const row = rows.get(key);
    if (row) {
      row.sent += entry.sent;
      row.bounced += entry.bounced;
      row.deferred += entry.deferred;
    } else {
      rows.set(key, { ...entry });
    }
  }
  // A stable order keeps concurrent upserts taking row locks in the same order (no deadlocks).
  return [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

function parseHeld(text: string): number[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value)
      ? value.map((n) => (Number.isSafeInteger(n) && (n as number) >= 0 ? (n as number) : 0))
      : [];
  } catch {
    return [];
  }
}

/** {@link WarmupStore} on Kysely: additive upserts, and a compare-and-set progress row per IP. */
export function kyselyWarmupStore(ctx: KyselyStoreContext): WarmupStore {
  const { db } = ctx;
  return {
    async addTraffic(all) {
      if (all.length === 0) return;
      // An IP deleted while its message was out has no counts to keep, and the insert would fail
      // its foreign key (failing the delivery outcome it is recorded with). On PostgreSQL the rows
      // are locked FOR KEY SHARE, as the foreign key check would, so a concurrent delete waits.
      let existing = db
        .selectFrom('ips')
        .select('id')
        .where('id', 'in', [...new Set(all.map((e) => e.ipId))]);
      if (ctx.dialect === 'postgres') existing = existing.forKeyShare();
      const live = new Set((await existing.execute()).map((row) => toNumber(row.id)));
      const entries = all.filter((e) => live.has(e.ipId));
      // Reserved sends are in the day's count already (reserveSend).
      const days = merge(
        entries.filter((e) => !e.reserved),
        (e) => `${e.ipId}\u0000${e.day}\u0000${e.provider}`,
      ).filter((e) => e.sent > 0);
      if (days.length > 0) {
        await db
          .insertInto('ip_daily_sends')
          .values(days.map((e) => ({ ip_id: e.ipId, day: e.day, provider: e.provider, sent: e.sent })))
          .onConflict((oc) =>
            oc
              .columns(['ip_id', 'day', 'provider'])
              .doUpdateSet((eb) => ({ sent: eb(eb.ref('ip_daily_sends.sent'), '+', eb.ref('excluded.sent')) })),
          )
          .execute();
      }
      const windows = merge(entries, (e) => `${e.ipId}\u0000${e.startedAt}\u0000${e.window}\u0000${e.provider}`);
      if (windows.length === 0) return;
      await db
        .insertInto('ip_warmup_traffic')
        .values(
          windows.map((e) => ({
            ip_id: e.ipId,
            started_at: e.startedAt,
            window_index: e.window,
            provider: e.provider,
            sent: e.sent,
            bounced: e.bounced,
            deferred: e.deferred,
          })),
        )
        .onConflict((oc) =>
          oc.columns(['ip_id', 'started_at', 'window_index', 'provider']).doUpdateSet((eb) => ({
            sent: eb(eb.ref('ip_warmup_traffic.sent'), '+', eb.ref('excluded.sent')),
            bounced: eb(eb.ref('ip_warmup_traffic.bounced'), '+', eb.ref('excluded.bounced')),
            deferred: eb(eb.ref('ip_warmup_traffic.deferred'), '+', eb.ref('excluded.deferred')),
          })),
        )
        .execute();
    },

    async reserveSend(send, cap) {
      if (!(cap >= 1)) return false;
      // One statement: the conflict branch locks the row (PostgreSQL) or the database (SQLite) and
      // judges the cap on the latest count, so processes reserving at once never pass it together.
      try {
        const row = await db
          .insertInto('ip_daily_sends')
          .values({ ip_id: send.ipId, day: send.day, provider: send.provider, sent: 1 })
          .onConflict((oc) => {
            const update = oc
              .columns(['ip_id', 'day', 'provider'])
              .doUpdateSet((eb) => ({ sent: eb(eb.ref('ip_daily_sends.sent'), '+', 1) }));
            return cap === Infinity ? update : update.where('ip_daily_sends.sent', '<', cap);
          })
          .returning('sent')
          .executeTakeFirst();
        return row !== undefined;
      } catch (error) {
        // The IP was deleted meanwhile: nothing to reserve on.
        if (isForeignKeyViolation(error)) return false;
        throw error;
      }
    },

    async returnSend(send) {
      await db
        .updateTable('ip_daily_sends')
        .set({ sent: sql<number>`sent - 1` })
        .where('ip_id', '=', send.ipId)
        .where('day', '=', send.day)
        .where('provider', '=', send.provider)
        .where('sent', '>', 0)
        .execute();
    },

    async sentOn(ipIds, day) {
      if (ipIds.length === 0) return [];
      const rows = await db
        .selectFrom('ip_daily_sends')
        .select(['ip_id', 'provider', 'sent'])
        .where('ip_id', 'in', [...ipIds])
        .where('day', '=', day)
        .where('sent', '>', 0)
        .orderBy('ip_id')
        .orderBy('provider')
        .execute();
      return rows.map((r) => ({ ipId: toNumber(r.ip_id), provider: toNumber(r.provider), sent: toNumber(r.sent) }));
    },

    async trafficBetween(ipId, startedAt, fromWindow, toWindow) {
      const rows = await db
        .selectFrom('ip_warmup_traffic')
        .select([
          'provider',
          sql<string>`sum(sent)`.as('sent'),
          sql<string>`sum(bounced)`.as('bounced'),
          sql<string>`sum(deferred)`.as('deferred'),
        ])
        .where('ip_id', '=', ipId)
        .where('started_at', '=', startedAt)
        .where('window_index', '>=', fromWindow)
        .where('window_index', '<', toWindow)
        .groupBy('provider')
        .orderBy('provider')
        .execute();
      return rows.map((r) => ({
        provider: toNumber(r.provider),
        sent: toNumber(r.sent),
        bounced: toNumber(r.bounced),
        deferred: toNumber(r.deferred),
      }));
    },

    async progressOf(ipIds) {
      if (ipIds.length === 0) return [];
      const rows = await db
        .selectFrom('ip_warmup_progress')
        .selectAll()
        .where('ip_id', 'in', [...ipIds])
        .orderBy('ip_id')
        .execute();
      return rows.map((r) => ({
        ipId: toNumber(r.ip_id),
        startedAt: toBigint(r.started_at),
        evaluated: toNumber(r.evaluated),
        held: parseHeld(r.held),
        updated: toBigint(r.updated),
      }));
    },

    async saveProgress(record, expectedEvaluated) {
      const values = {
        started_at: record.startedAt,
        evaluated: record.evaluated,
        held: JSON.stringify(record.held),
        updated: record.updated,
      };
      // The stored row of this warmup at the expected evaluation, or (when nothing was evaluated
      // yet) a row of an earlier warmup of the IP, which this one replaces.
      const updated = await db
        .updateTable('ip_warmup_progress')
        .set(values)
        .where('ip_id', '=', record.ipId)
        .where((eb) =>
          expectedEvaluated === 0
            ? eb.or([eb('started_at', '<>', record.startedAt), eb('evaluated', '=', 0)])
            : eb.and([eb('started_at', '=', record.startedAt), eb('evaluated', '=', expectedEvaluated)]),
        )
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) > 0) return true;
      if (expectedEvaluated !== 0) return false;
      const inserted = await db
        .insertInto('ip_warmup_progress')
        .values({ ip_id: record.ipId, ...values })
        .onConflict((oc) => oc.column('ip_id').doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
    },

    async prune(ipId, beforeDay, keepStartedAt) {
      await db.deleteFrom('ip_daily_sends').where('ip_id', '=', ipId).where('day', '<', beforeDay).execute();
      await db
        .deleteFrom('ip_warmup_traffic')
        .where('ip_id', '=', ipId)
        .where('started_at', '<>', keepStartedAt)
        .execute();
    },
  };
}
