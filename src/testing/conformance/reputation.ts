import { vitest } from '../vitest.js';
import type { MailplaneStore, ReputationIncrement } from '../../store/index.js';
import { newAccount, newSubAccount } from './fixtures.js';

/** An hour well after 1970, so `hour - 1` and the ranges around it are plain numbers. */
const HOUR = 500_000;

/** Hourly reputation counters: additive under concurrency, narrowed by scope, per sub-account, pruned. */
export function reputationStoreConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  describe('reputation', () => {
    it('adds exactly 50 when 50 increments of 1 run concurrently, and several of one bucket in one call', async () => {
      const account = await newAccount(store());
      const sub = await newSubAccount(store(), account.id);
      const bucket = { accountId: account.id, subAccountId: sub.id, hour: HOUR, domainId: 3, provider: 0, ipId: 7 };
      await Promise.all(
        Array.from({ length: 50 }, () => store().reputation.increment([{ ...bucket, counters: { sent: 1 } }])),
      );
      await store().reputation.increment([
        { ...bucket, counters: { processed: 2, hardBounced: 1 } },
        { ...bucket, counters: { processed: 3 } },
      ]);
      const total = await store().reputation.total({ accountId: account.id }, HOUR, HOUR);
      expect(total).toEqual({
        processed: 5,
        dropped: 0,
        sent: 50,
        delivered: 0,
        softBounced: 0,
        hardBounced: 1,
        opened: 0,
        unsubscribed: 0,
        spam: 0,
      });
    });

    it("narrows by sub-account, domain, provider and IPs, over inclusive hours, never another account's", async () => {
      const a = await newAccount(store(), 'ra');
      const b = await newAccount(store(), 'rb');
      const a1 = await newSubAccount(store(), a.id);
      const a2 = await newSubAccount(store(), a.id);
      const b1 = await newSubAccount(store(), b.id);
      const at = (subAccountId: number, hour: number, domainId: number, provider: number, ipId: number) => ({
        accountId: subAccountId === b1.id ? b.id : a.id,
        subAccountId,
        hour,
        domainId,
        provider,
        ipId,
      });
      const entries: ReputationIncrement[] = [
        { ...at(a1.id, HOUR, 1, 0, 10), counters: { sent: 1 } },
        { ...at(a1.id, HOUR, 1, 3, 11), counters: { sent: 2 } },
        { ...at(a1.id, HOUR + 1, 2, 0, 12), counters: { sent: 4 } },
        { ...at(a2.id, HOUR + 2, 1, 11, 10), counters: { sent: 8 } },
        { ...at(a2.id, HOUR - 1, 1, 0, 10), counters: { sent: 16 } },
        { ...at(a2.id, HOUR + 3, 1, 0, 10), counters: { sent: 32 } },
        { ...at(b1.id, HOUR, 1, 0, 10), counters: { sent: 64 } },
      ];
      await store().reputation.increment(entries);
      const sent = async (scope: Omit<Parameters<MailplaneStore['reputation']['total']>[0], 'accountId'>) =>
        (await store().reputation.total({ accountId: a.id, ...scope }, HOUR, HOUR + 2)).sent;
      expect(await sent({})).toBe(1 + 2 + 4 + 8);
      expect(await sent({ subAccountId: a1.id })).toBe(1 + 2 + 4);
      expect(await sent({ subAccountId: b1.id })).toBe(0);
      expect(await sent({ domainId: 1 })).toBe(1 + 2 + 8);
      expect(await sent({ provider: 0 })).toBe(1 + 4);
      expect(await sent({ ipIds: [10] })).toBe(1 + 8);
      expect(await sent({ ipIds: [10, 12] })).toBe(1 + 4 + 8);
      expect(await sent({ ipIds: [] })).toBe(0);
      expect(await sent({ subAccountId: a1.id, domainId: 1, provider: 3, ipIds: [11] })).toBe(2);
      expect((await store().reputation.total({ accountId: b.id }, HOUR - 10, HOUR + 10)).sent).toBe(64);
      expect((await store().reputation.total({ accountId: a.id }, HOUR + 10, HOUR + 20)).sent).toBe(0);
    });

    it('sums per sub-account of every account, those with at least the least processed, by account and sub-account', async () => {
      const a = await newAccount(store(), 'sa');
      const b = await newAccount(store(), 'sb');
      const a1 = await newSubAccount(store(), a.id);
      const a2 = await newSubAccount(store(), a.id);
      const b1 = await newSubAccount(store(), b.id);
      const bucket = (accountId: number, subAccountId: number, hour: number, ipId: number) => ({
        accountId,
        subAccountId,
        hour,
        domainId: 0,
        provider: 11,
        ipId,
      });
      await store().reputation.increment([
        { ...bucket(b.id, b1.id, HOUR, 0), counters: { processed: 30, dropped: 1 } },
        { ...bucket(a.id, a2.id, HOUR, 0), counters: { processed: 20 } },
        { ...bucket(a.id, a2.id, HOUR + 1, 5), counters: { sent: 20, hardBounced: 3 } },
        { ...bucket(a.id, a1.id, HOUR, 0), counters: { processed: 5 } },
        // Outside the hours: neither counted nor enough to qualify a1.
        { ...bucket(a.id, a1.id, HOUR + 5, 0), counters: { processed: 100 } },
      ]);
      const sums = await store().reputation.totalsBySubAccount(HOUR, HOUR + 1, 10);
      const ours = sums.filter((sum) => [a.id, b.id].includes(sum.accountId));
      expect(ours.map((sum) => [sum.accountId, sum.subAccountId])).toEqual([
        [a.id, a2.id],
        [b.id, b1.id],
      ]);
      expect(ours[0]?.counters).toMatchObject({ processed: 20, sent: 20, hardBounced: 3, dropped: 0 });
      expect(ours[1]?.counters).toMatchObject({ processed: 30, dropped: 1, sent: 0 });
      const all = await store().reputation.totalsBySubAccount(HOUR, HOUR + 1, 0);
      expect(all.filter((sum) => sum.subAccountId === a1.id).map((sum) => sum.counters.processed)).toEqual([5]);
    });

    it('deletes the buckets before an hour, at most the limit per call, and answers how many', async () => {
      const account = await newAccount(store());
      const sub = await newSubAccount(store(), account.id);
      const bucket = (hour: number, ipId: number) => ({
        accountId: account.id,
        subAccountId: sub.id,
        hour,
        domainId: 0,
        provider: 0,
        ipId,
        counters: { processed: 1 },
      });
      await store().reputation.increment([
        bucket(HOUR - 2, 1),
        bucket(HOUR - 2, 2),
        bucket(HOUR - 1, 1),
        bucket(HOUR, 1),
        bucket(HOUR + 1, 1),
      ]);
      expect(await store().reputation.deleteBefore(HOUR, 2)).toBe(2);
      expect(await store().reputation.deleteBefore(HOUR, 2)).toBe(1);
      expect(await store().reputation.deleteBefore(HOUR, 2)).toBe(0);
      const left = await store().reputation.total({ accountId: account.id }, HOUR - 10, HOUR + 10);
      expect(left.processed).toBe(2);
    });
  });
}
