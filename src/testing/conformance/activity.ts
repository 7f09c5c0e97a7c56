import { vitest } from '../vitest.js';
import type { EventRecord, MailplaneStore, MessageRecord } from '../../store/index.js';
import { newAccount, newSubAccount } from './fixtures.js';
import { orderedId, sampleBatch, sampleEvent, sampleMessage } from './messages.js';

const T0 = 1_733_844_681_120_384_511n;

/** Activity queries: filters, newest-first cursor paging, scoping, bounded retention deletes. */
export function activityStoreConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();

  /** Two sub-accounts' sends: five messages one second apart, alternating recipients, one event each. */
  async function seeded() {
    const account = await newAccount(store());
    const [subA, subB] = [await newSubAccount(store(), account.id), await newSubAccount(store(), account.id)];
    const batchA = sampleBatch(orderedId(50, 0), account.id, subA.id);
    const batchB = {
      ...sampleBatch(orderedId(51, 0), account.id, subB.id),
      content: { ...batchA.content, from: { email: 'Other@Example.com', name: '' }, groups: ['promo'] },
    };
    const at = (n: number) => T0 + BigInt(n) * 1_000_000_000n;
    const a = [0, 1, 2].map((n) =>
      sampleMessage(batchA, orderedId(50, n + 1), n % 2 ? 'Bob@Example.com' : 'ada@example.com', {
        submittedAt: at(n),
        ipPoolId: n === 2 ? 7 : null,
      }),
    );
    const b = [3, 4].map((n) =>
      sampleMessage(batchB, orderedId(51, n + 1), 'ada@example.com', { submittedAt: at(n), status: 'delivered' }),
    );
    const events = [...a, ...b].map((m, i) => sampleEvent(m, orderedId(52, i + 1), i % 2 ? 2 : 0, m.submittedAt));
    await store().messages.insertAccepted(batchA, a, events.slice(0, 3));
    await store().messages.insertAccepted(batchB, b, events.slice(3));
    type M = MessageRecord;
    type E = EventRecord;
    return { account, subA, subB, a: a as [M, M, M], b: b as [M, M], events: events as [E, E, E, E, E], at };
  }

  describe('activity', () => {
    it('lists messages newest first with each filter and their sends', async () => {
      const { account, subA, a, b, at } = await seeded();
      const ids = async (filter: object, limit = 100) =>
        (await store().messages.listActivity({ accountId: account.id, ...filter }, { limit })).map((x) => x.message.id);
      expect(await ids({})).toEqual([b[1].id, b[0].id, a[2].id, a[1].id, a[0].id]);
      expect(await ids({ subAccountId: subA.id })).toEqual([a[2].id, a[1].id, a[0].id]);
      expect(await ids({ recipient: 'bob@example.com' })).toEqual([a[1].id]);
      expect(await ids({ sender: 'other@example.com' })).toEqual([b[1].id, b[0].id]);
      expect(await ids({ status: 'delivered' })).toEqual([b[1].id, b[0].id]);
      expect(await ids({ group: 'promo' })).toEqual([b[1].id, b[0].id]);
      expect(await ids({ group: 'Promo' })).toEqual([]);
      expect(await ids({ group: 'news' })).toEqual([a[2].id, a[1].id, a[0].id]);
      expect(await ids({ ipPoolId: 7 })).toEqual([a[2].id]);
      expect(await ids({ from: at(1), to: at(3) })).toEqual([a[2].id, a[1].id]);
      expect(await ids({ accountId: account.id + 1000 })).toEqual([]);
      const [first] = await store().messages.listActivity({ accountId: account.id }, { limit: 1 });
      expect(first?.batch.content.from.email).toBe('Other@Example.com');
    });

    it('pages by cursor without repeats or gaps, also with rows of the same instant', async () => {
      const { account, a, b } = await seeded();
      const same = sampleBatch(orderedId(53, 0), account.id, a[0].subAccountId);
      const twins = <[MessageRecord, MessageRecord, MessageRecord]>(
        [1, 2, 3].map((n) => sampleMessage(same, orderedId(53, n), 'x@example.com', { submittedAt: b[1].submittedAt }))
      );
      await store().messages.insertAccepted(same, twins, []);
      const seen: string[] = [];
      let after;
      for (;;) {
        const page = await store().messages.listActivity({ accountId: account.id }, { limit: 2, after });
        if (page.length === 0) break;
        seen.push(...page.map((x) => x.message.id));
        const last = page[page.length - 1]!.message;
        after = { at: last.submittedAt, id: last.id };
      }
      expect(seen).toEqual([twins[2].id, twins[1].id, twins[0].id, b[1].id, b[0].id, a[2].id, a[1].id, a[0].id]);
    });

    it('lists events newest first by type and message filters, with their messages', async () => {
      const { account, events, b, subB } = await seeded();
      const ids = async (filter: object) =>
        (await store().messages.listActivityEvents({ accountId: account.id, ...filter }, { limit: 100 })).map(
          (x) => x.event.id,
        );
      expect(await ids({})).toEqual([...events].reverse().map((e) => e.id));
      expect(await ids({ eventTypes: [2] })).toEqual([events[3].id, events[1].id]);
      expect(await ids({ subAccountId: subB.id, recipient: 'ada@example.com' })).toEqual([events[4].id, events[3].id]);
      expect(await ids({ messageId: events[3].messageId })).toEqual(
        events
          .filter((e) => e.messageId === events[3].messageId)
          .reverse()
          .map((e) => e.id),
      );
      expect(await ids({ messageId: events[3].messageId, subAccountId: -1 })).toEqual([]);
      const page = await store().messages.listActivityEvents(
        { accountId: account.id },
        { limit: 2, after: { at: events[4].created, id: events[4].id } },
      );
      expect(page.map((x) => [x.event.id, x.message.id])).toEqual([
        [events[3].id, b[0].id],
        [events[2].id, events[2].messageId],
      ]);
    });

    it('filters events by their message keys, and by the current status and pool after an outcome and a later event', async () => {
      const { account, events, a, at } = await seeded();
      const ids = async (filter: object) =>
        (await store().messages.listActivityEvents({ accountId: account.id, ...filter }, { limit: 100 })).map(
          (x) => x.event.id,
        );
      expect(await ids({ sender: 'other@example.com' })).toEqual([events[4].id, events[3].id]);
      expect(await ids({ group: 'promo' })).toEqual([events[4].id, events[3].id]);
      expect(await ids({ ipPoolId: 7 })).toEqual([events[2].id]);
      expect(await ids({ status: 'delivered' })).toEqual([events[4].id, events[3].id]);
      const later = sampleEvent(a[0], orderedId(52, 9), 2, at(9));
      await store().messages.addEvents([later]);
      expect(await ids({ recipient: 'ada@example.com', status: a[0].status })).toEqual([
        later.id,
        events[2].id,
        events[0].id,
      ]);
      expect(
        await store().messages.recordOutcome(a[0].id, [a[0].status], {
          status: 'delivered',
          updated: at(10),
          ipPoolId: 7,
        }),
      ).toBe(true);
      expect(await ids({ status: 'delivered' })).toEqual([later.id, events[4].id, events[3].id, events[0].id]);
      expect(await ids({ ipPoolId: 7 })).toEqual([later.id, events[2].id, events[0].id]);
      expect(await ids({ status: a[1].status })).toEqual([events[2].id, events[1].id]);
      // Events outlive a message retention removed, but are no longer listed, and a page stays full.
      expect(await store().messages.deleteMessagesBefore(at(1), 10)).toBe(1);
      expect(await ids({ status: 'delivered' })).toEqual([events[4].id, events[3].id]);
      const first = await store().messages.listActivityEvents({ accountId: account.id, ipPoolId: 7 }, { limit: 1 });
      expect(first.map((x) => x.event.id)).toEqual([events[2].id]);
    });

    it('deletes old messages and events in bounded batches', async () => {
      const { account, at } = await seeded();
      expect(await store().messages.deleteMessagesBefore(at(4), 2)).toBe(2);
      expect(await store().messages.deleteMessagesBefore(at(4), 10)).toBe(2);
      expect(await store().messages.deleteMessagesBefore(at(4), 10)).toBe(0);
      expect(await store().messages.deleteEventsBefore(at(4), 3)).toBe(3);
      expect(await store().messages.deleteEventsBefore(at(4), 3)).toBe(1);
      const left = await store().messages.listActivity({ accountId: account.id }, { limit: 10 });
      expect(left.map((x) => x.message.submittedAt)).toEqual([at(4)]);
      expect(await store().messages.listActivityEvents({ accountId: account.id }, { limit: 10 })).toHaveLength(1);
    });

    it('deletes only the rows of a retention scope, and lists the sub-accounts with a retention of their own', async () => {
      const { account, subA, subB, a, b, events, at } = await seeded();
      const ids = async () =>
        (await store().messages.listActivity({ accountId: account.id }, { limit: 10 })).map((x) => x.message.id);
      const onlyA = { subAccount: { accountId: account.id, subAccountId: subA.id } };
      // Another account's sub-account of the same id range is never in scope.
      expect(
        await store().messages.deleteMessagesBefore(at(9), 10, {
          subAccount: { accountId: account.id + 1000, subAccountId: subA.id },
        }),
      ).toBe(0);
      expect(await store().messages.deleteEventsBefore(at(9), 2, onlyA)).toBe(2);
      expect(await store().messages.deleteEventsBefore(at(9), 2, onlyA)).toBe(1);
      expect(await store().messages.deleteMessagesBefore(at(9), 10, onlyA)).toBe(3);
      expect(await ids()).toEqual([b[1].id, b[0].id]);
      expect(await store().messages.deleteMessagesBefore(at(9), 10, { exceptSubAccountIds: [subB.id] })).toBe(0);
      expect(await store().messages.deleteEventsBefore(at(9), 10, { exceptSubAccountIds: [subB.id] })).toBe(0);
      expect(
        (await store().messages.listActivityEvents({ accountId: account.id }, { limit: 10 })).map((x) => x.event.id),
      ).toEqual([events[4].id, events[3].id]);
      expect(a).toHaveLength(3);

      const updated = await store().subAccounts.update(account.id, subB.id, { retentionDays: 90, updated: 2n });
      expect(updated.ok && updated.value.retentionDays).toBe(90);
      expect((await store().subAccounts.get(account.id, subA.id))?.retentionDays).toBeNull();
      const mine = async () =>
        (await store().subAccounts.listRetentionOverrides()).filter((o) => o.accountId === account.id);
      expect(await mine()).toEqual([{ accountId: account.id, subAccountId: subB.id, retentionDays: 90 }]);
      await store().subAccounts.update(account.id, subB.id, { retentionDays: null, updated: 3n });
      expect(await mine()).toEqual([]);
    });
  });
}
