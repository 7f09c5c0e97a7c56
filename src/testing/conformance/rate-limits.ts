import { vitest } from '../vitest.js';
import type { MailplaneStore, RateLimitHit, RateLimitUsage } from '../../store/index.js';
import { unique } from './fixtures.js';

const WINDOW = 1_800_000_000_000;
const MINUTE = 60_000;

/** One hit through the batch interface. */
async function hitOne(store: MailplaneStore, hit: RateLimitHit): Promise<RateLimitUsage> {
  const [usage] = await store.rateLimits.hit([hit]);
  return usage!;
}

/**
 * Rate-limit counters: atomic under concurrency, never over the limit, windows that roll forward
 * (and not back), pruning; and, when `another` opens a second store on the same database, shared
 * between store instances as between nodes.
 */
export function rateLimitStoreConformance(
  store: () => MailplaneStore,
  another?: (store: MailplaneStore) => Promise<MailplaneStore>,
): void {
  const { describe, expect, it } = vitest();
  describe('rate limits', () => {
    it('adds exactly 50 when 50 hits of 1 run concurrently', async () => {
      const bucket = unique('bucket');
      const hits = await Promise.all(
        Array.from({ length: 50 }, () => hitOne(store(), { bucket, windowStart: WINDOW, cost: 1, limit: 1_000 })),
      );
      expect(hits.every((h) => h.admitted)).toBe(true);
      expect(hits.map((h) => h.used).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect(await hitOne(store(), { bucket, windowStart: WINDOW, cost: 0, limit: 1_000 })).toMatchObject({ used: 50 });
    });

    it('admits no more than the limit under concurrency, and a refused hit adds nothing', async () => {
      const bucket = unique('bucket');
      const hits = await Promise.all(
        Array.from({ length: 40 }, () => hitOne(store(), { bucket, windowStart: WINDOW, cost: 3, limit: 100 })),
      );
      expect(hits.filter((h) => h.admitted)).toHaveLength(33);
      expect(hits.filter((h) => !h.admitted).every((h) => h.used === 99)).toBe(true);
      // 1 unit is left: a hit of 2 is refused, a hit of 1 fits.
      expect(await hitOne(store(), { bucket, windowStart: WINDOW, cost: 2, limit: 100 })).toEqual({
        admitted: false,
        used: 99,
        windowStart: WINDOW,
      });
      expect(await hitOne(store(), { bucket, windowStart: WINDOW, cost: 1, limit: 100 })).toEqual({
        admitted: true,
        used: 100,
        windowStart: WINDOW,
      });
    });

    it('starts afresh in a later window, counts a late node in the current one, and keeps buckets apart', async () => {
      const bucket = unique('bucket');
      const other = unique('bucket');
      const hit = (windowStart: number, cost: number, name = bucket) =>
        hitOne(store(), { bucket: name, windowStart, cost, limit: 10 });
      expect(await hit(WINDOW, 10)).toMatchObject({ admitted: true, used: 10 });
      expect(await hit(WINDOW, 1)).toMatchObject({ admitted: false, used: 10 });
      expect(await hit(WINDOW, 4, other)).toMatchObject({ admitted: true, used: 4 });
      expect(await hit(WINDOW + MINUTE, 3)).toEqual({ admitted: true, used: 3, windowStart: WINDOW + MINUTE });
      expect(await hit(WINDOW, 2)).toEqual({ admitted: true, used: 5, windowStart: WINDOW + MINUTE });
      // A hit larger than the limit never fits, even in a fresh window.
      expect(await hit(WINDOW + 2 * MINUTE, 11)).toEqual({
        admitted: false,
        used: 0,
        windowStart: WINDOW + 2 * MINUTE,
      });
      expect(await hit(WINDOW + 2 * MINUTE, 1)).toMatchObject({ admitted: true, used: 1 });
    });

    it('prunes at most the asked number of buckets whose window is over, and no other', async () => {
      const early = 1_000_000;
      const old = [unique('old'), unique('old'), unique('old')];
      const current = unique('current');
      for (const bucket of old) await hitOne(store(), { bucket, windowStart: early, cost: 1, limit: 5 });
      await hitOne(store(), { bucket: current, windowStart: early + MINUTE, cost: 2, limit: 5 });
      expect(await store().rateLimits.prune(early + MINUTE, 2)).toBe(2);
      expect(await store().rateLimits.prune(early + MINUTE, 2)).toBe(1);
      expect(await store().rateLimits.prune(early + MINUTE, 2)).toBe(0);
      expect(await hitOne(store(), { bucket: current, windowStart: early + MINUTE, cost: 0, limit: 5 })).toMatchObject({
        used: 2,
      });
      // A pruned bucket starts afresh even in its old window.
      expect(await hitOne(store(), { bucket: old[0]!, windowStart: early, cost: 0, limit: 5 })).toMatchObject({
        used: 0,
      });
    });

    it('applies a batch in order, each hit seeing the ones before it', async () => {
      const bucket = unique('bucket');
      const other = unique('bucket');
      const usages = await store().rateLimits.hit([
        { bucket, windowStart: WINDOW, cost: 4, limit: 10 },
        { bucket: other, windowStart: WINDOW, cost: 1, limit: 10 },
        { bucket, windowStart: WINDOW, cost: 7, limit: 10 },
        { bucket, windowStart: WINDOW, cost: 6, limit: 10 },
        { bucket, windowStart: WINDOW + MINUTE, cost: 2, limit: 10 },
      ]);
      expect(usages.map((u) => [u.admitted, u.used])).toEqual([
        [true, 4],
        [true, 1],
        [false, 4],
        [true, 10],
        [true, 2],
      ]);
      expect(await store().rateLimits.hit([])).toEqual([]);

      const many = unique('bucket');
      const fifty = await store().rateLimits.hit(
        Array.from({ length: 50 }, () => ({ bucket: many, windowStart: WINDOW, cost: 1, limit: 45 })),
      );
      expect(fifty.map((u) => u.used)).toEqual([...Array.from({ length: 45 }, (_, i) => i + 1), 45, 45, 45, 45, 45]);
      expect(fifty.filter((u) => u.admitted)).toHaveLength(45);
      expect(
        await store().rateLimits.hit(
          Array.from({ length: 5 }, () => ({ bucket: many, windowStart: WINDOW + MINUTE, cost: 2, limit: 45 })),
        ),
      ).toEqual(
        Array.from({ length: 5 }, (_, i) => ({ admitted: true, used: 2 * (i + 1), windowStart: WINDOW + MINUTE })),
      );
    });

    if (another) {
      it('shares the count between two store instances on the same database', async () => {
        const second = await another(store());
        try {
          const bucket = unique('bucket');
          const stores = [store(), second];
          const hits = await Promise.all(
            Array.from({ length: 50 }, (_, i) =>
              hitOne(stores[i % 2]!, { bucket, windowStart: WINDOW, cost: 1, limit: 40 }),
            ),
          );
          expect(hits.filter((h) => h.admitted)).toHaveLength(40);
          expect(await hitOne(second, { bucket, windowStart: WINDOW, cost: 0, limit: 40 })).toMatchObject({ used: 40 });
        } finally {
          await second.close();
        }
      });
    }
  });
}
