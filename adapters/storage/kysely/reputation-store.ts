import { sql } from 'kysely';
import { reputationBucketKey, zeroReputationCounters } from '../../../src/lifecycle/reputation-counts.js';
import {
  REPUTATION_COUNTERS,
  type ReputationCounter,
  type ReputationCounters,
  type ReputationIncrement,
  type ReputationStore,
} from '../../../src/store/reputation-store.js';
import type { KyselyStoreContext } from './context.js';
import { toNumber } from './rows.js';
import type { ReputationHourlyTable } from './tables/reputation.js';

type CounterColumn = Exclude<
  keyof ReputationHourlyTable,
  'account_id' | 'sub_account_id' | 'hour' | 'domain_id' | 'provider' | 'ip_id'
>;

const columnOf: Record<ReputationCounter, CounterColumn> = {
  processed: 'processed',
  dropped: 'dropped',
  sent: 'sent',
  delivered: 'delivered',
  softBounced: 'soft_bounced',
  hardBounced: 'hard_bounced',
  opened: 'opened',
  unsubscribed: 'unsubscribed',
  spam: 'spam',
};
const COLUMNS = REPUTATION_COUNTERS.map((name) => columnOf[name]);
const KEY_COLUMNS = ['account_id', 'sub_account_id', 'hour', 'domain_id', 'provider', 'ip_id'] as const;

/**
 * Merges entries of the same bucket so one statement never touches a row twice (PostgreSQL
 * forbids it), in a stable order so concurrent upserts take their row locks in the same order.
 */
function mergeByBucket(entries: readonly ReputationIncrement[]): ReputationIncrement[] {
  const buckets = new Map<string, ReputationIncrement>();
  for (const entry of entries) {
    const key = reputationBucketKey(entry);
    const bucket = buckets.get(key) ?? { ...entry, counters: {} };
    for (const name of REPUTATION_COUNTERS) {
      const value = entry.counters[name];
      if (value) bucket.counters[name] = (bucket.counters[name] ?? 0) + value;
    }
    buckets.set(key, bucket);
  }
  return [...buckets.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, bucket]) => bucket);
}

/** Sums as the drivers answer them (PostgreSQL: numeric as text; SQLite: bigint) as numbers. */
function toCounters(row: Record<string, unknown>): ReputationCounters {
  const counters = zeroReputationCounters();
  for (const name of REPUTATION_COUNTERS) counters[name] = toNumber((row[columnOf[name]] ?? 0) as number);
  return counters;
}

/** {@link ReputationStore} on Kysely: additive upserts into `reputation_hourly` (migration 0030). */
export function kyselyReputationStore(ctx: KyselyStoreContext): ReputationStore {
  const { db } = ctx;
  const sums = COLUMNS.map((column) => sql<string>`coalesce(sum(${sql.ref(column)}), 0)`.as(column));

  return {
    async increment(entries) {
      const rows = mergeByBucket(entries).map((entry) => {
        const values: Record<string, number> = {
          account_id: entry.accountId,
          sub_account_id: entry.subAccountId,
          hour: entry.hour,
          domain_id: entry.domainId,
          provider: entry.provider,
          ip_id: entry.ipId,
        };
        for (const name of REPUTATION_COUNTERS) values[columnOf[name]] = entry.counters[name] ?? 0;
        return values as never;
      });
      if (rows.length === 0) return;
      await db
        .insertInto('reputation_hourly')
        .values(rows)
        .onConflict((oc) =>
          oc
            .columns([...KEY_COLUMNS])
            .doUpdateSet((eb) =>
              Object.fromEntries(
                COLUMNS.map((column) => [
                  column,
                  eb(eb.ref(`reputation_hourly.${column}`), '+', eb.ref(`excluded.${column}`)),
                ]),
              ),
            ),
        )
        .execute();
    },

    async total(scope, fromHour, toHour) {
      if (scope.ipIds?.length === 0) return zeroReputationCounters();
      let query = db
        .selectFrom('reputation_hourly')
        .select(sums)
        .where('account_id', '=', scope.accountId)
        .where('hour', '>=', fromHour)
        .where('hour', '<=', toHour);
      if (scope.subAccountId !== undefined) query = query.where('sub_account_id', '=', scope.subAccountId);
      if (scope.domainId !== undefined) query = query.where('domain_id', '=', scope.domainId);
      if (scope.provider !== undefined) query = query.where('provider', '=', scope.provider);
      if (scope.ipIds !== undefined) query = query.where('ip_id', 'in', [...scope.ipIds]);
      const row = await query.executeTakeFirst();
      return row ? toCounters(row) : zeroReputationCounters();
    },

    async totalsBySubAccount(fromHour, toHour, minProcessed) {
      // The (hour) index serves the range; the grouping is per sub-account of every account.
      const rows = await db
        .selectFrom('reputation_hourly')
        .select(['account_id', 'sub_account_id'])
        .select(sums)
        .where('hour', '>=', fromHour)
        .where('hour', '<=', toHour)
        .groupBy(['account_id', 'sub_account_id'])
        .having(sql`coalesce(sum(processed), 0)`, '>=', minProcessed)
        .orderBy('account_id')
        .orderBy('sub_account_id')
        .execute();
      return rows.map((row) => ({
        accountId: toNumber(row.account_id),
        subAccountId: toNumber(row.sub_account_id),
        counters: toCounters(row),
      }));
    },

    async deleteBefore(beforeHour, limit) {
      if (limit <= 0) return 0;
      // A bounded delete by primary key: neither dialect takes DELETE … LIMIT by default.
      const keys = sql.join(KEY_COLUMNS.map((column) => sql.ref(column)));
      const result = await sql`delete from reputation_hourly where (${keys}) in (
        select ${keys} from reputation_hourly where hour < ${beforeHour} limit ${limit})`.execute(db);
      return Number(result.numAffectedRows ?? 0n);
    },
  };
}
