import { vitest } from '../vitest.js';
import type { MailplaneStore, ShapingAdmitRequest } from '../../store/index.js';
import { newAccount, unique } from './fixtures.js';

const T0 = 1_800_000_000_000;

/**
 * Traffic-shaping state: connection caps and rate slots that hold under concurrency and across
 * store instances (as across nodes), bookings, suspensions, the adaptive factor, the rule table.
 */
export function shapingStoreConformance(
  store: () => MailplaneStore,
  another?: (store: MailplaneStore) => Promise<MailplaneStore>,
): void {
  const { describe, expect, it } = vitest();
  const request = (key: string, accountId: number, patch: Partial<ShapingAdmitRequest> = {}): ShapingAdmitRequest => ({
    key,
    accountId,
    holder: 'node-a',
    nowMs: T0,
    intervalMs: null,
    maxConnections: null,
    leaseMs: 60_000,
    book: false,
    paid: false,
    ...patch,
  });

  describe('shaping', () => {
    it('admits no more messages in flight than the cap under concurrency, and one more after a release', async () => {
      const { id } = await newAccount(store());
      const key = unique('ip:1|provider:gmail');
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => store().shaping.admit(request(key, id, { maxConnections: 3 }))),
      );
      expect(answers.filter((a) => a.admitted)).toHaveLength(3);
      expect(answers.filter((a) => !a.admitted).every((a) => !a.admitted && a.why === 'connections')).toBe(true);
      await store().shaping.release(key, 'node-a');
      expect(await store().shaping.admit(request(key, id, { maxConnections: 3 }))).toEqual({
        admitted: true,
        factor: 1,
      });
      // A holder's lease that ran out counts nothing: a node that died holds no slot.
      expect(await store().shaping.admit(request(key, id, { maxConnections: 3, nowMs: T0 + 60_001 }))).toMatchObject({
        admitted: true,
      });
      const [state] = await store().shaping.states(id, T0 + 60_001, 10);
      expect(state).toMatchObject({ key, accountId: id, inFlight: 1, factor: 1 });
    });

    it('spaces admissions by the interval, books the next free slots in order, and honours a paid slot', async () => {
      const { id } = await newAccount(store());
      const key = unique('ip:2|provider:yahoo');
      const rate = { intervalMs: 1000 };
      expect(await store().shaping.admit(request(key, id, rate))).toEqual({ admitted: true, factor: 1 });
      expect(await store().shaping.admit(request(key, id, { ...rate, nowMs: T0 + 10 }))).toEqual({
        admitted: false,
        why: 'rate',
        retryAt: T0 + 1000,
        booked: false,
      });
      const booked = await Promise.all(
        [0, 1, 2].map(() => store().shaping.admit(request(key, id, { ...rate, nowMs: T0 + 10, book: true }))),
      );
      const slots = booked.map((b) => (b.admitted ? 0 : b.retryAt)).sort((a, b) => a - b);
      expect(slots).toEqual([T0 + 1000, T0 + 2000, T0 + 3000]);
      // The holder of the first booking comes back on time: it is not charged again.
      expect(await store().shaping.admit(request(key, id, { ...rate, nowMs: T0 + 1000, paid: true }))).toMatchObject({
        admitted: true,
      });
      // Anyone else waits for the slot after the booked ones.
      expect(await store().shaping.admit(request(key, id, { ...rate, nowMs: T0 + 1000 }))).toMatchObject({
        admitted: false,
        retryAt: T0 + 4000,
      });
    });

    it('takes at most one slot per interval when two store instances admit at once', async () => {
      if (!another) return;
      const second = await another(store());
      try {
        const { id } = await newAccount(store());
        const key = unique('ip:3|provider:microsoft');
        const admit = (i: number) =>
          (i % 2 ? second : store()).shaping.admit(
            request(key, id, { intervalMs: 60_000, maxConnections: 10, holder: i % 2 ? 'node-b' : 'node-a' }),
          );
        // A store shared by several processes (it has a cache version) is raced; two SQLite
        // connections in one thread would wait on each other's lock, so they take turns.
        const answers = store().cacheVersion
          ? await Promise.all(Array.from({ length: 10 }, (_, i) => admit(i)))
          : await Array.from({ length: 10 }, (_, i) => i).reduce(
              async (done, i) => [...(await done), await admit(i)],
              Promise.resolve([] as Awaited<ReturnType<typeof admit>>[]),
            );
        expect(answers.filter((a) => a.admitted)).toHaveLength(1);
      } finally {
        await second.close();
      }
    });

    it('suspends until a time, halves the factor once per gap, recovers after a quiet period, and resumes', async () => {
      const { id } = await newAccount(store());
      const key = unique('ip:4|provider:gmail');
      const slowDown = { key, accountId: id, action: 'slow-down' as const, minFactor: 1 / 16, gapMs: 5000 };
      await store().shaping.pushBack({ ...slowDown, nowMs: T0, reason: 'GMAIL_RATE_LIMITED', reply: '421 4.7.28 …' });
      await store().shaping.pushBack({
        ...slowDown,
        nowMs: T0 + 100,
        reason: 'GMAIL_RATE_LIMITED',
        reply: '421 again',
      });
      let [state] = await store().shaping.states(id, T0, 10);
      expect(state).toMatchObject({
        factor: 0.5,
        reason: 'GMAIL_RATE_LIMITED',
        lastReply: '421 again',
        throttledAt: T0,
      });
      // At half the factor, the interval doubles and the connection cap halves.
      expect(await store().shaping.admit(request(key, id, { intervalMs: 1000, maxConnections: 2 }))).toEqual({
        admitted: true,
        factor: 0.5,
      });
      expect(await store().shaping.admit(request(key, id, { maxConnections: 2, paid: true }))).toMatchObject({
        admitted: false,
        why: 'connections',
      });
      expect(await store().shaping.admit(request(key, id, { intervalMs: 1000, nowMs: T0 + 1999 }))).toMatchObject({
        retryAt: T0 + 2000,
      });
      expect(await store().shaping.recover(key, T0 + 30_000, 60_000, 1.5)).toBe(0.5);
      expect(await store().shaping.recover(key, T0 + 60_000, 60_000, 1.5)).toBe(0.75);
      expect(await store().shaping.recover(key, T0 + 61_000, 60_000, 1.5)).toBe(0.75);
      expect(await store().shaping.recover(key, T0 + 120_000, 60_000, 1.5)).toBe(1);

      await store().shaping.pushBack({
        key,
        accountId: id,
        action: 'suspend',
        untilMs: T0 + 3_600_000,
        minFactor: 1 / 16,
        gapMs: 5000,
        nowMs: T0 + 200_000,
        reason: 'SPAMHAUS_LISTED',
        reply: '554 5.7.1 Service unavailable; Client host [127.0.0.2] blocked using zen.spamhaus.org',
      });
      expect(await store().shaping.suspended(T0 + 200_000)).toContainEqual({ key, until: T0 + 3_600_000 });
      expect(await store().shaping.admit(request(key, id, { nowMs: T0 + 300_000 }))).toEqual({
        admitted: false,
        why: 'suspended',
        retryAt: T0 + 3_600_000,
        booked: false,
      });
      const { id: stranger } = await newAccount(store());
      expect(await store().shaping.resume(stranger, key)).toBe(false);
      expect(await store().shaping.resume(id, key)).toBe(true);
      expect(await store().shaping.admit(request(key, id, { nowMs: T0 + 300_000 }))).toMatchObject({ admitted: true });
      [state] = await store().shaping.states(id, T0 + 300_000, 10);
      expect(state).toMatchObject({ suspendedUntil: null, reason: 'SPAMHAUS_LISTED' });
    });

    it("keeps an account's rule table, replaced whole, and other accounts' apart", async () => {
      const { id } = await newAccount(store());
      const { id: other } = await newAccount(store());
      expect(await store().shaping.rules(id)).toEqual([]);
      const rules = [
        { destination: 'provider:gmail', source: '*', messagesPerMinute: 60 },
        { destination: 'domain:example.com', source: 'ip:203.0.113.5', maxConnections: 2 },
      ];
      await store().shaping.replaceRules(id, rules, T0);
      expect(await store().shaping.rules(id)).toEqual(rules);
      expect(await store().shaping.rules(other)).toEqual([]);
      await store().shaping.replaceRules(id, [rules[1]!], T0 + 1);
      expect(await store().shaping.rules(id)).toEqual([rules[1]]);
      await store().shaping.replaceRules(id, [], T0 + 2);
      expect(await store().shaping.rules(id)).toEqual([]);
    });

    it('takes times with a fraction of a millisecond (a monotonic clock)', async () => {
      const { id } = await newAccount(store());
      const key = unique('ip:6|domain:fraction.test');
      expect(
        await store().shaping.admit(request(key, id, { nowMs: T0 + 0.5, intervalMs: 33.3, maxConnections: 2 })),
      ).toMatchObject({ admitted: true });
      await store().shaping.pushBack({
        key,
        accountId: id,
        action: 'suspend',
        untilMs: T0 + 1000.5,
        minFactor: 0.5,
        gapMs: 0.5,
        nowMs: T0 + 0.5,
        reason: 'R',
        reply: '421',
      });
      expect((await store().shaping.suspended(T0 + 0.5)).map((s) => s.key)).toContain(key);
      expect(await store().shaping.recover(key, T0 + 0.5, 0.5, 1.5)).toBe(1);
      expect(await store().shaping.states(id, T0 + 0.5, 10)).toHaveLength(1);
      expect(await store().shaping.prune(0.5)).toBe(0);
    });

    it('prunes states not updated since a time', async () => {
      const { id } = await newAccount(store());
      const old = unique('ip:5|domain:old.test');
      const fresh = unique('ip:5|domain:fresh.test');
      await store().shaping.admit(request(old, id, { maxConnections: 1, nowMs: 1000 }));
      await store().shaping.admit(request(fresh, id, { maxConnections: 1, nowMs: T0 }));
      expect(await store().shaping.prune(2000)).toBeGreaterThanOrEqual(1);
      const keys = (await store().shaping.states(id, T0, 10)).map((s) => s.key);
      expect(keys).toEqual([fresh]);
    });
  });
}
