import { sql, type Kysely } from 'kysely';
import type { RateLimitHit, RateLimitStore, RateLimitUsage } from '../../../src/store/rate-limit-store.js';
import type { KyselyStoreContext } from './context.js';
import { toBool, toNumber } from './rows.js';
import type { Database } from './schema.js';

type DriverInt = number | bigint | string;

/** One hit: a single upsert whose update decides the new window and the admission together. */
async function hitOne(
  db: Kysely<Database>,
  { bucket, windowStart, cost, limit }: RateLimitHit,
): Promise<RateLimitUsage> {
  const fitsAlone = cost <= limit;
  const result = await sql<{ used: DriverInt; window_start: DriverInt; admitted: DriverInt }>`
    insert into rate_limits (bucket, window_start, used, admitted)
    values (${bucket}, ${windowStart}, ${fitsAlone ? cost : 0}, ${fitsAlone ? 1 : 0})
    on conflict (bucket) do update set
      used = case
        when excluded.window_start > rate_limits.window_start then excluded.used
        when rate_limits.used + ${cost} <= ${limit} then rate_limits.used + ${cost}
        else rate_limits.used end,
      admitted = case
        when excluded.window_start > rate_limits.window_start then excluded.admitted
        when rate_limits.used + ${cost} <= ${limit} then 1
        else 0 end,
      window_start = case
        when excluded.window_start > rate_limits.window_start then excluded.window_start
        else rate_limits.window_start end
    returning used, window_start, admitted`.execute(db);
  const row = result.rows[0]!;
  return { admitted: toBool(row.admitted), used: toNumber(row.used), windowStart: toNumber(row.window_start) };
}

type Indexed = [index: number, hit: RateLimitHit];

/**
 * Consecutive hits of one bucket for the same window and limit, counted as one hit of their total
 * when it fits (then each fitted in turn, and each gets its running total); otherwise one by one.
 */
async function hitRun(db: Kysely<Database>, run: readonly Indexed[], usages: RateLimitUsage[]): Promise<void> {
  if (run.length > 1) {
    const total = run.reduce((sum, [, hit]) => sum + hit.cost, 0);
    const merged = await hitOne(db, { ...run[0]![1], cost: total });
    if (merged.admitted) {
      let used = merged.used - total;
      for (const [index, hit] of run)
        usages[index] = { admitted: true, used: (used += hit.cost), windowStart: merged.windowStart };
      return;
    }
  }
  for (const [index, hit] of run) usages[index] = await hitOne(db, hit);
}

/** The hits of one bucket, in order, in runs of the same window and limit. */
async function hitBucket(db: Kysely<Database>, hits: readonly Indexed[], usages: RateLimitUsage[]): Promise<void> {
  let run: Indexed[] = [];
  for (const entry of hits) {
    const first = run[0]?.[1];
    if (first && (first.windowStart !== entry[1].windowStart || first.limit !== entry[1].limit)) {
      await hitRun(db, run, usages);
      run = [];
    }
    run.push(entry);
  }
  if (run.length > 0) await hitRun(db, run, usages);
}

/**
 * {@link RateLimitStore} on Kysely: each hit is one `INSERT ... ON CONFLICT DO UPDATE ... RETURNING`
 * on the bucket's row, which both dialects run atomically (PostgreSQL under the row lock, SQLite
 * under its single writer). The update evaluates every expression against the row as it was, so
 * "a later window starts afresh" and "add only when it fits" are decided in the same step.
 *
 * In a batch, the hits of one bucket are counted together in one statement when they all fit. On
 * SQLite the batch takes the one connection once; on PostgreSQL its buckets run in parallel on
 * the pool.
 */
export function kyselyRateLimitStore(ctx: KyselyStoreContext): RateLimitStore {
  const { db } = ctx;
  return {
    async hit(hits) {
      if (hits.length === 0) return [];
      if (hits.length === 1) return [await hitOne(db, hits[0]!)];
      const usages: RateLimitUsage[] = new Array<RateLimitUsage>(hits.length);
      const buckets = new Map<string, Indexed[]>();
      hits.forEach((hit, index) => {
        const entries = buckets.get(hit.bucket) ?? [];
        entries.push([index, hit]);
        buckets.set(hit.bucket, entries);
      });
      if (ctx.dialect === 'sqlite' || ctx.inTransaction) {
        // Not one transaction: a write lock held across awaits would stall another connection to
        // the same file (its busy wait blocks the thread); each upsert commits on its own.
        const inOrder = async (conn: Kysely<Database>) => {
          for (const entries of buckets.values()) await hitBucket(conn, entries, usages);
        };
        await (ctx.inTransaction ? inOrder(db) : db.connection().execute(inOrder));
      } else {
        await Promise.all([...buckets.values()].map((entries) => hitBucket(db, entries, usages)));
      }
      return usages;
    },

    async prune(before, max) {
      const result = await db
        .deleteFrom('rate_limits')
        .where('bucket', 'in', (eb) =>
          eb.selectFrom('rate_limits').select('bucket').where('window_start', '<', before).limit(max),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
