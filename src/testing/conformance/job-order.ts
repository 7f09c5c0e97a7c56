import { vitest } from '../vitest.js';
import type { JobStore, MailplaneStore, NewJob } from '../../store/index.js';

const T0 = 1_767_225_600_000; // 2026-01-01T00:00:00Z
const LEASE = 30_000;

const job = (kind: string, runAt: number, extra: Partial<NewJob> = {}): NewJob => ({
  kind,
  payload: { n: 1 },
  runAt,
  ...extra,
});

async function ids(jobs: JobStore, inputs: NewJob[]): Promise<number[]> {
  const results = await jobs.enqueue(inputs);
  return results.map((r) => {
    if (!r.created || r.id === null) throw new Error('fixture job was not created');
    return r.id;
  });
}

const claimIds = async (jobs: JobStore, limit: number, now = T0 + 1_000, kinds?: string[]) =>
  (await jobs.claim({ workerId: 'w', now, limit, leaseMs: LEASE, ...(kinds ? { kinds } : {}) })).map((j) => j.id);

/** The claim order of the job queue: classes first, then sub-accounts' fair shares (docs/shaping.md). */
export function jobOrderConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  describe('job claim order', () => {
    it('claims transactional jobs first, then neutral ones, then bulk ones, whatever their runAt', async () => {
      const [bulk, neutral, transactional] = await ids(store().jobs, [
        job('deliver', T0, { stream: 'bulk', fairKey: 'a' }),
        job('other', T0 + 10),
        job('deliver', T0 + 20, { stream: 'transactional', fairKey: 'b' }),
      ]);
      expect(await claimIds(store().jobs, 10)).toEqual([transactional, neutral, bulk]);
      expect(await store().jobs.get(bulk!)).toMatchObject({ stream: 'bulk', fairKey: 'a' });
      expect(await store().jobs.get(neutral!)).toMatchObject({ stream: null, fairKey: null });
    });

    it("serves another key's new job before the rest of a key's backlog, then takes turns", async () => {
      const backlog = await ids(
        store().jobs,
        Array.from({ length: 200 }, () => job('deliver', T0, { stream: 'bulk', fairKey: 'a' })),
      );
      const [newcomer] = await ids(store().jobs, [job('deliver', T0 + 500, { stream: 'bulk', fairKey: 'b' })]);
      expect(await claimIds(store().jobs, 3)).toEqual([backlog[0], newcomer, backlog[1]]);

      const more = await ids(store().jobs, [
        job('deliver', T0 + 600, { stream: 'bulk', fairKey: 'c' }),
        job('deliver', T0 + 600, { stream: 'bulk', fairKey: 'c' }),
      ]);
      // a's backlog was placed ahead of the clock, a share apart: c's jobs go before the rest of it.
      expect(await claimIds(store().jobs, 4)).toEqual([more[0], more[1], backlog[2], backlog[3]]);
    });

    it('merges the kinds of a claim in the same order', async () => {
      const [bulkPage, retry, split] = await ids(store().jobs, [
        job('page', T0, { stream: 'bulk', fairKey: 'a' }),
        job('retry', T0 + 5, { stream: 'transactional', fairKey: 'a' }),
        job('split', T0 + 9, { stream: 'transactional', fairKey: 'b' }),
        job('webhook', T0),
      ]);
      expect(await claimIds(store().jobs, 2, T0 + 1_000, ['page', 'retry', 'split'])).toEqual([retry, split]);
      expect(await claimIds(store().jobs, 5, T0 + 1_000, ['page', 'retry', 'split'])).toEqual([bulkPage]);
    });

    it('never claims a job before it is due, and a retry keeps its place once due', async () => {
      const [first, second] = await ids(store().jobs, [
        job('deliver', T0, { stream: 'bulk', fairKey: 'a' }),
        job('deliver', T0, { stream: 'bulk', fairKey: 'a' }),
      ]);
      const [later] = await ids(store().jobs, [job('deliver', T0 + 60_000, { stream: 'transactional', fairKey: 'b' })]);
      expect(await claimIds(store().jobs, 1, T0)).toEqual([first]);
      expect(await store().jobs.fail(first!, 'w', { error: '451', retryAt: T0 + 30_000 })).toBe(true);
      expect(await claimIds(store().jobs, 10, T0 + 1)).toEqual([second]);
      expect(await store().jobs.complete(second!, 'w')).toBe(true);
      expect(await claimIds(store().jobs, 10, T0 + 29_999)).toEqual([]);
      expect(await claimIds(store().jobs, 10, T0 + 30_000)).toEqual([first]);
      expect(await store().jobs.complete(first!, 'w')).toBe(true);
      expect(await claimIds(store().jobs, 10, T0 + 59_999)).toEqual([]);
      expect(await claimIds(store().jobs, 10, T0 + 60_000)).toEqual([later]);
    });

    it("starts a key's share afresh once its jobs are done", async () => {
      const done = await ids(store().jobs, [
        job('deliver', T0, { stream: 'bulk', fairKey: 'a' }),
        job('deliver', T0, { stream: 'bulk', fairKey: 'a' }),
      ]);
      expect(await claimIds(store().jobs, 2, T0)).toEqual(done);
      for (const id of done) expect(await store().jobs.complete(id, 'w')).toBe(true);
      const [b1, b2] = await ids(store().jobs, [
        job('deliver', T0 + 100, { stream: 'bulk', fairKey: 'b' }),
        job('deliver', T0 + 100, { stream: 'bulk', fairKey: 'b' }),
      ]);
      // a's earlier jobs are gone: its new one is placed at its runAt, between b's two.
      const [a3] = await ids(store().jobs, [job('deliver', T0 + 200, { stream: 'bulk', fairKey: 'a' })]);
      expect(await claimIds(store().jobs, 3)).toEqual([b1, a3, b2]);
    });

    it('leases each job of mixed classes and keys to exactly one of 30 concurrent claimers', async () => {
      const streams = ['transactional', 'bulk', null] as const;
      const created = await ids(
        store().jobs,
        Array.from({ length: 40 }, (_, i) =>
          job(i % 2 ? 'page' : 'split', T0 + i, { stream: streams[i % 3], fairKey: `k${i % 4}` }),
        ),
      );
      const claims = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          store().jobs.claim({
            workerId: `w${i}`,
            now: T0 + 1_000,
            limit: 2,
            leaseMs: LEASE,
            kinds: ['page', 'split'],
          }),
        ),
      );
      const claimed = claims.flat().map((j) => j.id);
      expect(new Set(claimed).size).toBe(claimed.length);
      const rest = await claimIds(store().jobs, 100);
      expect([...claimed, ...rest].sort((a, b) => a - b)).toEqual([...created].sort((a, b) => a - b));
    });
  });
}
