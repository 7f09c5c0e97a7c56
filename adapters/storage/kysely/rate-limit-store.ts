import { sql } from 'kysely';
import type { RateLimitStore } from '../../../src/store/rate-limit-store.js';
import type { KyselyStoreContext } from './context.js';
import { toBool, toNumber } from './rows.js';

type DriverInt = number | bigint | string;

/**
 * {@link RateLimitStore} on Kysely: each hit is one `INSERT ... ON CONFLICT DO UPDATE ... RETURNING`
 * on the bucket's row, which both dialects run atomically (PostgreSQL under the row lock, SQLite
 * under its single writer). The update evaluates every expression against the row as it was, so
 * "a later window starts afresh" and "add only when it fits" are decided in the same step.
 */
export function kyselyRateLimitStore(ctx: KyselyStoreContext): RateLimitStore {
  const { db } = ctx;
  return {
    async hit({ bucket, windowStart, cost, limit }) {
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
    },

    async prune(before, max) {
      const result = await db
        .deleteFrom('rate_limits')
        .where('bucket', 'in', (eb) => eb.selectFrom('rate_limits').select('bucket').where('window_start', '<', before).limit(max))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
