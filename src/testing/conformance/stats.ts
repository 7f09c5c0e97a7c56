import { vitest } from '../vitest.js';
import { ALL_MAIL, type MailplaneStore } from '../../store/index.js';
import { newAccount, newSubAccount } from './fixtures.js';

/** Statistics counters: additive under concurrency, scoped, grouped, summed per day. */
export function statsStoreConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  describe('stats', () => {
    it('adds exactly 50 when 50 increments of 1 run concurrently', async () => {
      const account = await newAccount(store());
      const sub = await newSubAccount(store(), account.id);
      await Promise.all(
        Array.from({ length: 50 }, () =>
          store().stats.increment([
            {
              accountId: account.id,
              subAccountId: sub.id,
              day: '2026-01-02',
              group: ALL_MAIL,
              counters: { processed: 1 },
            },
          ]),
        ),
      );
      const total = await store().stats.total(
        { accountId: account.id, subAccountId: sub.id },
        '2026-01-01',
        '2026-01-31',
      );
      expect(total.processed).toBe(50);
      expect(total.delivered).toBe(0);
    });

    it('merges several increments of one row in a single call', async () => {
      const account = await newAccount(store());
      const sub = await newSubAccount(store(), account.id);
      const row = { accountId: account.id, subAccountId: sub.id, day: '2026-01-02', group: ALL_MAIL };
      await store().stats.increment([
        { ...row, counters: { processed: 2, dropped: 1 } },
        { ...row, counters: { processed: 3 } },
      ]);
      const [day] = await store().stats.daily(
        { accountId: account.id, subAccountId: sub.id },
        '2026-01-02',
        '2026-01-02',
      );
      expect(day?.counters).toMatchObject({ processed: 5, dropped: 1 });
    });

    it('sums per day, per group, per sub-account and per account, and never across accounts', async () => {
      const a = await newAccount(store(), 'a');
      const b = await newAccount(store(), 'b');
      const a1 = await newSubAccount(store(), a.id);
      const a2 = await newSubAccount(store(), a.id);
      const b1 = await newSubAccount(store(), b.id);
      await store().stats.increment([
        {
          accountId: a.id,
          subAccountId: a1.id,
          day: '2026-03-01',
          group: ALL_MAIL,
          counters: { processed: 1, delivered: 1 },
        },
        {
          accountId: a.id,
          subAccountId: a1.id,
          day: '2026-03-01',
          group: 'news',
          counters: { processed: 1, delivered: 1 },
        },
        { accountId: a.id, subAccountId: a1.id, day: '2026-03-03', group: ALL_MAIL, counters: { processed: 2 } },
        { accountId: a.id, subAccountId: a2.id, day: '2026-03-01', group: ALL_MAIL, counters: { processed: 4 } },
        { accountId: b.id, subAccountId: b1.id, day: '2026-03-01', group: ALL_MAIL, counters: { processed: 100 } },
      ]);
      const daily = await store().stats.daily({ accountId: a.id, subAccountId: a1.id }, '2026-03-01', '2026-03-31');
      expect(daily.map((d) => [d.day, d.counters.processed])).toEqual([
        ['2026-03-01', 1],
        ['2026-03-03', 2],
      ]);
      expect((await store().stats.total({ accountId: a.id }, '2026-03-01', '2026-03-31')).processed).toBe(7);
      expect(
        (await store().stats.total({ accountId: a.id, group: 'news' }, '2026-03-01', '2026-03-31')).processed,
      ).toBe(1);
      expect((await store().stats.total({ accountId: a.id }, '2026-03-02', '2026-03-02')).processed).toBe(0);
      expect(
        (await store().stats.total({ accountId: b.id, subAccountId: a1.id }, '2026-03-01', '2026-03-31')).processed,
      ).toBe(0);
    });
    it("lists the group names with counters in a range, per sub-account or account, never another account's", async () => {
      const a = await newAccount(store(), 'ga');
      const b = await newAccount(store(), 'gb');
      const a1 = await newSubAccount(store(), a.id);
      const a2 = await newSubAccount(store(), a.id);
      const b1 = await newSubAccount(store(), b.id);
      await store().stats.increment([
        { accountId: a.id, subAccountId: a1.id, day: '2026-04-01', group: ALL_MAIL, counters: { processed: 2 } },
        { accountId: a.id, subAccountId: a1.id, day: '2026-04-01', group: 'welcome', counters: { processed: 1 } },
        { accountId: a.id, subAccountId: a1.id, day: '2026-04-02', group: 'news', counters: { processed: 1 } },
        { accountId: a.id, subAccountId: a2.id, day: '2026-04-02', group: 'news', counters: { processed: 1 } },
        { accountId: a.id, subAccountId: a2.id, day: '2026-04-09', group: 'later', counters: { processed: 1 } },
        { accountId: b.id, subAccountId: b1.id, day: '2026-04-01', group: 'secret-b', counters: { processed: 1 } },
      ]);
      expect(await store().stats.groups({ accountId: a.id }, '2026-04-01', '2026-04-05', 100)).toEqual([
        'news',
        'welcome',
      ]);
      expect(
        await store().stats.groups({ accountId: a.id, subAccountId: a2.id }, '2026-04-01', '2026-04-30', 100),
      ).toEqual(['later', 'news']);
      expect(await store().stats.groups({ accountId: a.id }, '2026-04-01', '2026-04-30', 2)).toEqual(['later', 'news']);
      expect(
        await store().stats.groups({ accountId: a.id, subAccountId: b1.id }, '2026-04-01', '2026-04-30', 100),
      ).toEqual([]);
    });
  });
}
