import type { RateLimitStore, RateLimitUsage } from '../../store/index.js';
import type { MemoryContext } from './common.js';

/** {@link RateLimitStore} of the in-memory store: one row per bucket, each hit one atomic step. */
export function memoryRateLimitStore(ctx: MemoryContext): RateLimitStore {
  return {
    hit: (hits) =>
      ctx.write((tables) =>
        hits.map(({ bucket, windowStart, cost, limit }): RateLimitUsage => {
          const row = tables.rateLimits.get(bucket);
          // A later window starts afresh; the stored one or an earlier one (a lagging clock) counts in the stored one.
          const fresh = !row || windowStart > row.windowStart;
          const used = fresh ? 0 : row.used;
          const start = fresh ? windowStart : row.windowStart;
          const admitted = used + cost <= limit;
          const after = admitted ? used + cost : used;
          tables.rateLimits.set(bucket, { key: bucket, windowStart: start, used: after });
          return { admitted, used: after, windowStart: start };
        }),
      ),

    prune: (before, max) =>
      ctx.write((tables) => {
        const stale = [...tables.rateLimits.values()].filter((r) => r.windowStart < before).slice(0, Math.max(0, max));
        for (const r of stale) tables.rateLimits.delete(r.key);
        return stale.length;
      }),
  };
}
