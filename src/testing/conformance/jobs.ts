import { vitest } from '../vitest.js';
import type { JobStore, MailplaneStore, NewJob } from '../../store/index.js';

const T0 = 1_767_225_600_000; // 2026-01-01T00:00:00Z
const LEASE = 30_000;

const job = (kind: string, runAt = T0, extra: Partial<NewJob> = {}): NewJob => ({
  kind,
  payload: { n: 1 },
  runAt,
  ...extra,
});

async function enqueueOne(jobs: JobStore, input: NewJob): Promise<number> {
  const [result] = await jobs.enqueue([input]);
  if (!result?.created || result.id === null) throw new Error('fixture job was not created');
  return result.id;
}

const claimAs = (jobs: JobStore, workerId: string, now = T0, limit = 10, kinds?: string[]) =>
  jobs.claim({ workerId, now, limit, leaseMs: LEASE, ...(kinds ? { kinds } : {}) });

/** The durable job queue: leases, exactly-one claims, retries, dedupe, ordering. */
export function jobStoreConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  describe('jobs', () => {
    it('stores a job with its JSON payload and reads it back', async () => {
      const payload = { messageId: 'm-1', to: ['a@example.com'], nested: { ok: true, n: null }, unicode: 'ünï 📨' };
      const id = await enqueueOne(store().jobs, { kind: 'delivery', payload, runAt: T0, dedupeKey: 'm-1' });
      expect(await store().jobs.get(id)).toEqual({
        id,
        kind: 'delivery',
        payload,
        state: 'pending',
        runAt: T0,
        leaseUntil: null,
        lockedBy: null,
        attempts: 0,
        dedupeKey: 'm-1',
        lastError: null,
        stream: null,
        fairKey: null,
      });
      expect(await store().jobs.get(id + 1000)).toBeNull();
      expect(await store().jobs.enqueue([])).toEqual([]);
    });

    it('answers each job of a batch in input order', async () => {
      const results = await store().jobs.enqueue([
        job('a'),
        job('b', T0, { dedupeKey: 'k' }),
        job('c'),
        job('b', T0, { dedupeKey: 'k' }),
      ]);
      expect(results.map((r) => r.created)).toEqual([true, true, true, false]);
      expect(results[3]?.id).toBe(results[1]?.id);
      const kinds = await Promise.all(results.slice(0, 3).map(async (r) => (await store().jobs.get(r.id!))?.kind));
      expect(kinds).toEqual(['a', 'b', 'c']);
    });

    it('leases each job to exactly one of 50 concurrent claimers', async () => {
      const results = await store().jobs.enqueue(Array.from({ length: 30 }, (_, i) => job('race', T0 + i)));
      const claims = await Promise.all(
        Array.from({ length: 50 }, (_, i) => claimAs(store().jobs, `worker-${i}`, T0 + 1_000, 2)),
      );
      const claimed = claims.flatMap((jobs, i) =>
        jobs.map((j) => ({ id: j.id, worker: j.lockedBy, expected: `worker-${i}` })),
      );
      expect(claimed.map((c) => c.id).sort((a, b) => a - b)).toEqual(results.map((r) => r.id).sort((a, b) => a! - b!));
      for (const c of claimed) expect(c.worker).toBe(c.expected);
      expect(await store().jobs.countByState()).toEqual({ pending: 0, running: 30, dead: 0 });
    });

    it('claims due jobs only, oldest runAt first, up to the limit, and counts the attempt', async () => {
      const late = await enqueueOne(store().jobs, job('order', T0 + 300));
      const early = await enqueueOne(store().jobs, job('order', T0 + 100));
      const middle = await enqueueOne(store().jobs, job('order', T0 + 200));
      const future = await enqueueOne(store().jobs, job('order', T0 + 10_000));
      const first = await claimAs(store().jobs, 'w', T0 + 1_000, 2);
      expect(first.map((j) => j.id)).toEqual([early, middle]);
      expect(first[0]).toMatchObject({ state: 'running', lockedBy: 'w', leaseUntil: T0 + 1_000 + LEASE, attempts: 1 });
      expect((await claimAs(store().jobs, 'w', T0 + 1_000)).map((j) => j.id)).toEqual([late]);
      expect(await claimAs(store().jobs, 'w', T0 + 1_000)).toEqual([]);
      expect((await claimAs(store().jobs, 'w', T0 + 10_000)).map((j) => j.id)).toEqual([future]);
    });

    it('claims only the kinds asked for', async () => {
      const a = await enqueueOne(store().jobs, job('kind-a'));
      const b = await enqueueOne(store().jobs, job('kind-b'));
      expect(await claimAs(store().jobs, 'w', T0, 10, [])).toEqual([]);
      expect((await claimAs(store().jobs, 'w', T0, 10, ['kind-b', 'other'])).map((j) => j.id)).toEqual([b]);
      expect((await claimAs(store().jobs, 'w', T0, 10)).map((j) => j.id)).toEqual([a]);
    });

    it('makes a job claimable again when its lease expires, and extendLease postpones that', async () => {
      const id = await enqueueOne(store().jobs, job('lease'));
      await claimAs(store().jobs, 'A');
      expect(await claimAs(store().jobs, 'B', T0 + LEASE - 1)).toEqual([]);
      expect(await store().jobs.extendLease(id, 'A', T0 + 2 * LEASE)).toBe(true);
      expect(await claimAs(store().jobs, 'B', T0 + LEASE)).toEqual([]);
      const [again] = await claimAs(store().jobs, 'B', T0 + 2 * LEASE);
      expect(again).toMatchObject({ id, lockedBy: 'B', attempts: 2 });
    });

    it('lets no stale worker settle a job re-leased to another', async () => {
      const id = await enqueueOne(store().jobs, job('stale'));
      await claimAs(store().jobs, 'A');
      await claimAs(store().jobs, 'B', T0 + LEASE);
      expect(await store().jobs.complete(id, 'A')).toBe(false);
      expect(await store().jobs.fail(id, 'A', { error: 'x', retryAt: null })).toBe(false);
      expect(await store().jobs.extendLease(id, 'A', T0 + 10 * LEASE)).toBe(false);
      expect(await store().jobs.release(id, 'A')).toBe(false);
      expect(await store().jobs.get(id)).toMatchObject({ state: 'running', lockedBy: 'B', attempts: 2 });
      expect(await store().jobs.complete(id, 'B')).toBe(true);
      expect(await store().jobs.get(id)).toBeNull();
      expect(await store().jobs.countByState('stale')).toEqual({ pending: 0, running: 0, dead: 0 });
      expect(await store().jobs.complete(id, 'B')).toBe(false);
    });

    it('settles nothing that is not running', async () => {
      const id = await enqueueOne(store().jobs, job('idle'));
      expect(await store().jobs.complete(id, 'A')).toBe(false);
      expect(await store().jobs.fail(id, 'A', { error: 'x', retryAt: T0 })).toBe(false);
      expect(await store().jobs.release(id, 'A')).toBe(false);
      expect(await store().jobs.get(id)).toMatchObject({ state: 'pending', attempts: 0, lastError: null });
    });

    it('schedules a retry with the error, and keeps a dead job out of every claim', async () => {
      const id = await enqueueOne(store().jobs, job('retry'));
      await claimAs(store().jobs, 'A');
      expect(await store().jobs.fail(id, 'A', { error: '451 try later', retryAt: T0 + 60_000 })).toBe(true);
      expect(await store().jobs.get(id)).toMatchObject({
        state: 'pending',
        runAt: T0 + 60_000,
        lockedBy: null,
        leaseUntil: null,
        attempts: 1,
        lastError: '451 try later',
      });
      expect(await claimAs(store().jobs, 'B', T0 + 59_999)).toEqual([]);
      const [second] = await claimAs(store().jobs, 'B', T0 + 60_000);
      expect(second).toMatchObject({ id, attempts: 2, lastError: '451 try later' });
      expect(await store().jobs.fail(id, 'B', { error: '550 no such user', retryAt: null })).toBe(true);
      expect(await store().jobs.get(id)).toMatchObject({ state: 'dead', attempts: 2, lastError: '550 no such user' });
      expect(await claimAs(store().jobs, 'C', T0 + 10 * 86_400_000)).toEqual([]);
      expect(await store().jobs.countByState('retry')).toEqual({ pending: 0, running: 0, dead: 1 });
    });

    it('reports the pending jobs of each kind and the run time of its oldest due one', async () => {
      await enqueueOne(store().jobs, job('stats-a', T0 + 300));
      await enqueueOne(store().jobs, job('stats-a', T0 + 100));
      await enqueueOne(store().jobs, job('stats-a', T0 + 50_000));
      await enqueueOne(store().jobs, job('stats-b', T0 + 60_000));
      const running = await enqueueOne(store().jobs, job('stats-c', T0));
      expect((await claimAs(store().jobs, 'w', T0 + 1_000, 10, ['stats-c'])).map((j) => j.id)).toEqual([running]);
      const stats = (await store().jobs.queueStats(T0 + 1_000)).filter((line) => line.kind.startsWith('stats-'));
      expect(stats.sort((a, b) => a.kind.localeCompare(b.kind))).toEqual([
        { kind: 'stats-a', pending: 3, oldestDueAt: T0 + 100 },
        { kind: 'stats-b', pending: 1, oldestDueAt: null },
      ]);
    });

    it('prunes dead jobs whose last attempt is older than the cut-off', async () => {
      const old = await enqueueOne(store().jobs, job('prune', T0));
      const recent = await enqueueOne(store().jobs, job('prune', T0 + 5_000));
      const live = await enqueueOne(store().jobs, job('prune', T0 + 10_000));
      for (const j of await claimAs(store().jobs, 'A', T0 + 5_000, 2)) {
        await store().jobs.fail(j.id, 'A', { error: 'gone', retryAt: null });
      }
      expect((await store().jobs.get(live))?.state).toBe('pending');
      expect(await store().jobs.pruneDead(T0 + 1)).toBe(1);
      expect(await store().jobs.get(old)).toBeNull();
      expect((await store().jobs.get(recent))?.state).toBe('dead');
      expect((await store().jobs.get(live))?.state).toBe('pending');
    });

    it('releases a job without counting the attempt, at once or at a later time', async () => {
      const id = await enqueueOne(store().jobs, job('release'));
      await claimAs(store().jobs, 'A');
      expect(await store().jobs.release(id, 'A')).toBe(true);
      expect(await store().jobs.get(id)).toMatchObject({ state: 'pending', attempts: 0, lockedBy: null, runAt: T0 });
      const [again] = await claimAs(store().jobs, 'B', T0 + 1);
      expect(again).toMatchObject({ id, lockedBy: 'B', attempts: 1 });
      expect(await store().jobs.release(id, 'B', T0 + 3_600_000)).toBe(true);
      expect(await claimAs(store().jobs, 'C', T0 + 3_599_999)).toEqual([]);
      expect(await claimAs(store().jobs, 'C', T0 + 3_600_000)).toMatchObject([{ id, attempts: 1 }]);
    });

    it('enqueues one active job per kind and dedupe key', async () => {
      const [first] = await store().jobs.enqueue([job('dns-check', T0, { dedupeKey: 'domain-7' })]);
      const [again] = await store().jobs.enqueue([job('dns-check', T0 + 5, { dedupeKey: 'domain-7' })]);
      expect(first?.created).toBe(true);
      expect(again).toEqual({ created: false, id: first?.id });
      const [otherKind] = await store().jobs.enqueue([job('webhook', T0, { dedupeKey: 'domain-7' })]);
      expect(otherKind?.created).toBe(true);
      // A running job still blocks the key; a completed or dead one does not.
      await claimAs(store().jobs, 'A', T0, 10, ['dns-check']);
      expect((await store().jobs.enqueue([job('dns-check', T0, { dedupeKey: 'domain-7' })]))[0]?.created).toBe(false);
      await store().jobs.complete(first!.id!, 'A');
      const [afterComplete] = await store().jobs.enqueue([job('dns-check', T0, { dedupeKey: 'domain-7' })]);
      expect(afterComplete?.created).toBe(true);
      await claimAs(store().jobs, 'A', T0, 10, ['dns-check']);
      await store().jobs.fail(afterComplete!.id!, 'A', { error: 'no', retryAt: null });
      expect((await store().jobs.enqueue([job('dns-check', T0, { dedupeKey: 'domain-7' })]))[0]?.created).toBe(true);
      expect(await store().jobs.countByState('dns-check')).toEqual({ pending: 1, running: 0, dead: 1 });
    });

    it('creates exactly one job for a dedupe key enqueued 20 times concurrently', async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, () => store().jobs.enqueue([job('dedupe-race', T0, { dedupeKey: 'same' })])),
      );
      expect(results.flat().filter((r) => r.created)).toHaveLength(1);
      expect(await store().jobs.countByState('dedupe-race')).toEqual({ pending: 1, running: 0, dead: 0 });
    });

    it('enqueues with the enclosing transaction, and not at all when it rolls back', async () => {
      await expect(
        store().transaction(async (tx) => {
          await tx.jobs.enqueue([job('tx', T0, { dedupeKey: 'rolled-back' })]);
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      expect(await store().jobs.countByState('tx')).toEqual({ pending: 0, running: 0, dead: 0 });
      await store().transaction((tx) => tx.jobs.enqueue([job('tx', T0, { dedupeKey: 'rolled-back' })]));
      expect(await store().jobs.countByState('tx')).toEqual({ pending: 1, running: 0, dead: 0 });
    });

    it('wakes onJobsDue listeners after an enqueue commits, not for a rollback (when the store has it)', async () => {
      const s = store();
      if (!s.onJobsDue) return;
      let wakes = 0;
      const unsubscribe = s.onJobsDue(() => wakes++);
      try {
        await expect(
          s.transaction(async (tx) => {
            await tx.jobs.enqueue([job('due')]);
            expect(wakes).toBe(0); // not before the commit
            throw new Error('abort');
          }),
        ).rejects.toThrow('abort');
        expect(wakes).toBe(0);
        await s.transaction((tx) => tx.jobs.enqueue([job('due')]));
        expect(wakes).toBe(1);
        await s.jobs.enqueue([job('due')]);
        expect(wakes).toBe(2);
      } finally {
        unsubscribe();
      }
      await s.jobs.enqueue([job('due')]);
      expect(wakes).toBe(2);
    });

    it('enqueues a batch of 1,200 jobs atomically and claims them all', async () => {
      const results = await store().jobs.enqueue(
        Array.from({ length: 1_200 }, (_, i) => job('bulk', T0, { payload: { i } })),
      );
      expect(new Set(results.map((r) => r.id)).size).toBe(1_200);
      const claimed = await claimAs(store().jobs, 'A', T0, 2_000);
      expect(claimed.map((j) => j.payload.i)).toEqual(Array.from({ length: 1_200 }, (_, i) => i));
      for (const j of claimed) expect(results[j.payload.i as number]?.id).toBe(j.id);
    });
  });
}
