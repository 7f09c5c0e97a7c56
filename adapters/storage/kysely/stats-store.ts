import { sql } from 'kysely';
import { zeroCounters } from '../../../src/stats/counters.js';
import {
  ALL_MAIL,
  STORED_COUNTERS,
  type StatsIncrement,
  type StatsScope,
  type StatsStore,
  type StoredCounter,
  type StoredCounters,
} from '../../../src/store/stats-store.js';
import type { KyselyStoreContext } from './context.js';
import { toNumber } from './rows.js';
import type { StatsDailyTable } from './tables/stats.js';

type CounterColumn = Exclude<keyof StatsDailyTable, 'account_id' | 'sub_account_id' | 'day' | 'grp'>;

const columnOf: Record<StoredCounter, CounterColumn> = {
  processed: 'processed',
  dropped: 'dropped',
  smtpDropped: 'smtp_dropped',
  delivered: 'delivered',
  softBounced: 'soft_bounced',
  hardBounced: 'hard_bounced',
  opened: 'opened',
  clicked: 'clicked',
  unsubscribed: 'unsubscribed',
  spam: 'spam',
};
const COLUMNS = STORED_COUNTERS.map((name) => columnOf[name]);

/** Merges entries of the same row so one statement never touches a row twice (PostgreSQL forbids it). */
function mergeByRow(entries: readonly StatsIncrement[]): StatsIncrement[] {
  const rows = new Map<string, StatsIncrement>();
  for (const entry of entries) {
    const key = `${entry.subAccountId}\u0000${entry.day}\u0000${entry.group}`;
    const row = rows.get(key) ?? { ...entry, counters: {} };
    for (const [name, value] of Object.entries(entry.counters) as Array<[StoredCounter, number]>) {
      row.counters[name] = (row.counters[name] ?? 0) + value;
    }
    rows.set(key, row);
  }
  // A stable order keeps concurrent upserts taking row locks in the same order (no deadlocks).
  return [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

function toCounters(row: Record<string, unknown>): StoredCounters {
  const counters = zeroCounters();
  for (const name of STORED_COUNTERS) counters[name] = toNumber((row[columnOf[name]] ?? 0) as number);
  return counters;
}

/** {@link StatsStore} on Kysely: additive upserts into `stats_daily`. */
export function kyselyStatsStore(ctx: KyselyStoreContext): StatsStore {
  const { db } = ctx;

  const scoped = (scope: StatsScope, from: string, to: string) => {
    let query = db
      .selectFrom('stats_daily')
      .where('account_id', '=', scope.accountId)
      .where('grp', '=', scope.group ?? ALL_MAIL)
      .where('day', '>=', from)
      .where('day', '<=', to);
    if (scope.subAccountId !== undefined) query = query.where('sub_account_id', '=', scope.subAccountId);
    return query;
  };
  const sums = COLUMNS.map((column) => sql<string>`coalesce(sum(${sql.ref(column)}), 0)`.as(column));

  return {
    async increment(entries) {
      const rows = mergeByRow(entries).map((entry) => {
        const values: Record<string, number | string> = {
          account_id: entry.accountId,
          sub_account_id: entry.subAccountId,
          day: entry.day,
          grp: entry.group,
        };
        for (const name of STORED_COUNTERS) values[columnOf[name]] = entry.counters[name] ?? 0;
        return values as never;
      });
      if (rows.length === 0) return;
      await db
        .insertInto('stats_daily')
        .values(rows)
        .onConflict((oc) =>
          oc
            .columns(['sub_account_id', 'day', 'grp'])
            .doUpdateSet((eb) =>
              Object.fromEntries(
                COLUMNS.map((column) => [
                  column,
                  eb(eb.ref(`stats_daily.${column}`), '+', eb.ref(`excluded.${column}`)),
                ]),
              ),
            ),
        )
        .execute();
    },

    async daily(scope, from, to) {
      const rows = await scoped(scope, from, to).select('day').select(sums).groupBy('day').orderBy('day').execute();
      return rows.map((row) => ({ day: row.day, counters: toCounters(row) }));
    },

    async total(scope, from, to) {
      const row = await scoped(scope, from, to).select(sums).executeTakeFirst();
      return row ? toCounters(row) : zeroCounters();
    },

    async groups(scope, from, to, limit) {
      // The account index (account_id, grp, day) or the primary key (sub_account_id, day, grp) serves it.
      let query = db
        .selectFrom('stats_daily')
        .select('grp')
        .distinct()
        .where('account_id', '=', scope.accountId)
        .where('grp', '<>', ALL_MAIL)
        .where('day', '>=', from)
        .where('day', '<=', to);
      if (scope.subAccountId !== undefined) query = query.where('sub_account_id', '=', scope.subAccountId);
      const rows = await query.orderBy('grp').limit(limit).execute();
      return rows.map((row) => row.grp);
    },
  };
}
