import { sql, type Selectable } from 'kysely';
import type { ShapingRule } from '../../../src/shaping/rules.js';
import type { ShapingAdmission, ShapingStateRecord, ShapingStore } from '../../../src/store/index.js';
import { atomically, type KyselyStoreContext } from './context.js';
import { toNumber } from './rows.js';
import type { ShapingStateTable } from './tables/shaping.js';

const orNull = (value: number | bigint | string | null): number | null => (value === null ? null : toNumber(value));

function toState(row: Selectable<ShapingStateTable>, inFlight: number): ShapingStateRecord {
  return {
    key: row.key,
    accountId: toNumber(row.account_id),
    factor: Number(row.factor),
    nextSlotAt: Number(row.next_slot_at),
    inFlight,
    suspendedUntil: orNull(row.suspended_until),
    reason: row.reason,
    lastReply: row.last_reply,
    lastReplyAt: orNull(row.last_reply_at),
    throttledAt: orNull(row.throttled_at),
    recoveredAt: orNull(row.recovered_at),
    updatedAt: toNumber(row.updated_at),
  };
}

function parseRules(text: string): ShapingRule[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value as ShapingRule[]) : [];
  } catch {
    return [];
  }
}

/**
 * {@link ShapingStore} on Kysely. An admission is one transaction that locks the key's state row
 * (FOR UPDATE on PostgreSQL; SQLite has one writer), so the nodes of a cluster never pass a cap or
 * share a slot together.
 */
export function kyselyShapingStore(ctx: KyselyStoreContext): ShapingStore {
  const { db } = ctx;

  /** The key's state row, created on first use, locked until the transaction ends. */
  async function lockedState(trx: typeof db, key: string, accountId: number, nowMs: number) {
    await trx
      .insertInto('shaping_state')
      .values({ key, account_id: accountId, next_slot_at: 0, factor: 1, updated_at: nowMs })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    let select = trx.selectFrom('shaping_state').selectAll().where('key', '=', key);
    if (ctx.dialect === 'postgres') select = select.forUpdate();
    return select.executeTakeFirstOrThrow();
  }

  async function inFlight(trx: typeof db, key: string, nowMs: number): Promise<number> {
    const row = await trx
      .selectFrom('shaping_flights')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('in_flight'), eb.lit(0)).as('total'))
      .where('key', '=', key)
      .where('lease_until', '>', nowMs)
      .executeTakeFirst();
    return Number(row?.total ?? 0);
  }

  return {
    admit: (request) =>
      atomically(ctx, async (trx): Promise<ShapingAdmission> => {
        const { key } = request;
        const nowMs = Math.floor(request.nowMs);
        const state = toState(await lockedState(trx, key, request.accountId, nowMs), 0);
        if (state.suspendedUntil !== null && state.suspendedUntil > nowMs)
          return { admitted: false, why: 'suspended', retryAt: state.suspendedUntil, booked: false };
        if (request.maxConnections !== null) {
          const cap = Math.max(1, Math.floor(request.maxConnections * state.factor));
          if ((await inFlight(trx, key, nowMs)) >= cap)
            return { admitted: false, why: 'connections', retryAt: nowMs, booked: false };
        }
        let nextSlotAt = state.nextSlotAt;
        if (request.intervalMs !== null && !request.paid) {
          const spacing = request.intervalMs / state.factor;
          if (nextSlotAt > nowMs) {
            if (request.book)
              await trx
                .updateTable('shaping_state')
                .set({ next_slot_at: nextSlotAt + spacing, updated_at: nowMs })
                .where('key', '=', key)
                .execute();
            return { admitted: false, why: 'rate', retryAt: nextSlotAt, booked: request.book };
          }
          nextSlotAt = nowMs + spacing;
        }
        await trx
          .updateTable('shaping_state')
          .set({ next_slot_at: nextSlotAt, updated_at: nowMs })
          .where('key', '=', key)
          .execute();
        const leaseUntil = nowMs + Math.ceil(request.leaseMs);
        await trx
          .insertInto('shaping_flights')
          .values({ key, holder: request.holder, in_flight: 1, lease_until: leaseUntil })
          .onConflict((oc) =>
            oc.columns(['key', 'holder']).doUpdateSet({
              // A lease that ran out counted nothing any more: start again from this message.
              in_flight: sql`case when shaping_flights.lease_until > ${nowMs} then shaping_flights.in_flight + 1 else 1 end`,
              lease_until: leaseUntil,
            }),
          )
          .execute();
        return { admitted: true, factor: state.factor };
      }),

    async release(key, holder) {
      await db
        .updateTable('shaping_flights')
        .set({ in_flight: sql`in_flight - 1` })
        .where('key', '=', key)
        .where('holder', '=', holder)
        .where('in_flight', '>', 0)
        .execute();
    },

    pushBack: (given) =>
      atomically(ctx, async (trx) => {
        // Times are whole milliseconds in bigint columns.
        const event = { ...given, nowMs: Math.floor(given.nowMs), untilMs: given.untilMs && Math.ceil(given.untilMs) };
        const state = toState(await lockedState(trx, event.key, event.accountId, event.nowMs), 0);
        const slowDown =
          event.action === 'slow-down' &&
          (state.throttledAt === null || state.throttledAt <= event.nowMs - event.gapMs);
        const set = {
          reason: event.reason,
          last_reply: event.reply.slice(0, 1000),
          last_reply_at: event.nowMs,
          updated_at: event.nowMs,
          ...(slowDown && { factor: Math.max(event.minFactor, state.factor / 2), throttled_at: event.nowMs }),
          ...(event.action === 'suspend' && {
            suspended_until: Math.max(state.suspendedUntil ?? 0, event.untilMs ?? event.nowMs),
          }),
        };
        await trx.updateTable('shaping_state').set(set).where('key', '=', event.key).execute();
      }),

    recover: (key, givenNowMs, quietMs, step) =>
      atomically(ctx, async (trx) => {
        const nowMs = Math.floor(givenNowMs);
        let select = trx.selectFrom('shaping_state').selectAll().where('key', '=', key);
        if (ctx.dialect === 'postgres') select = select.forUpdate();
        const row = await select.executeTakeFirst();
        if (!row) return 1;
        const state = toState(row, 0);
        const quiet = (at: number | null) => at === null || at <= nowMs - quietMs;
        if (state.factor >= 1 || !quiet(state.throttledAt) || !quiet(state.recoveredAt)) return state.factor;
        const factor = Math.min(1, state.factor * step);
        await trx
          .updateTable('shaping_state')
          .set({ factor, recovered_at: nowMs, updated_at: nowMs })
          .where('key', '=', key)
          .execute();
        return factor;
      }),

    async states(accountId, givenNowMs, limit) {
      const nowMs = Math.floor(givenNowMs);
      let select = db.selectFrom('shaping_state').selectAll();
      if (accountId !== null) select = select.where('account_id', '=', accountId);
      const rows = await select.orderBy('updated_at', 'desc').orderBy('key').limit(limit).execute();
      if (rows.length === 0) return [];
      const flights = await db
        .selectFrom('shaping_flights')
        .select(['key', (eb) => eb.fn.sum<number | string>('in_flight').as('total')])
        .where(
          'key',
          'in',
          rows.map((row) => row.key),
        )
        .where('lease_until', '>', nowMs)
        .groupBy('key')
        .execute();
      const counts = new Map(flights.map((f) => [f.key, Number(f.total)]));
      return rows.map((row) => toState(row, counts.get(row.key) ?? 0));
    },

    async suspended(givenNowMs) {
      const nowMs = Math.floor(givenNowMs);
      const rows = await db
        .selectFrom('shaping_state')
        .select(['key', 'suspended_until'])
        .where('suspended_until', '>', nowMs)
        .limit(10_000)
        .execute();
      return rows.map((row) => ({ key: row.key, until: toNumber(row.suspended_until!) }));
    },

    async resume(accountId, key) {
      const result = await db
        .updateTable('shaping_state')
        .set({ suspended_until: null, factor: 1 })
        .where('key', '=', key)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async rules(accountId) {
      const row = await db
        .selectFrom('shaping_rules')
        .select('rules')
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return row ? parseRules(row.rules) : [];
    },

    async replaceRules(accountId, rules, givenNowMs) {
      const nowMs = Math.floor(givenNowMs);
      if (rules.length === 0) {
        await db.deleteFrom('shaping_rules').where('account_id', '=', accountId).execute();
        return;
      }
      const text = JSON.stringify(rules);
      await db
        .insertInto('shaping_rules')
        .values({ account_id: accountId, rules: text, updated_at: nowMs })
        .onConflict((oc) => oc.column('account_id').doUpdateSet({ rules: text, updated_at: nowMs }))
        .execute();
    },

    prune: (givenBeforeMs) =>
      atomically(ctx, async (trx) => {
        const beforeMs = Math.floor(givenBeforeMs);
        await trx.deleteFrom('shaping_flights').where('lease_until', '<', beforeMs).execute();
        const result = await trx.deleteFrom('shaping_state').where('updated_at', '<', beforeMs).executeTakeFirst();
        return Number(result.numDeletedRows);
      }),
  };
}
