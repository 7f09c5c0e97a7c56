import { vitest } from '../vitest.js';
import type { MailplaneStore } from '../../store/index.js';
import { newSubAccount } from './fixtures.js';
import { receivingSubAccount, sampleMessage, sampleRoute, T } from './inbound.js';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** The lists of received messages (src/store/inbound-list.ts): filters, both pagings, the route's pattern, isolation. */
export function inboundListConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  describe('inbound lists', () => {
    it("lists an account's messages newest first, with each filter, never another account's", async () => {
      const mine = await receivingSubAccount(store());
      const sibling = { accountId: mine.accountId, subAccountId: (await newSubAccount(store(), mine.accountId)).id };
      const stranger = await receivingSubAccount(store());
      const route = await store().inbound.createRoute(sampleRoute(mine, mine.domain.name));
      if (!route.ok) throw new Error('fixture route');
      const sent = '11111111-1111-4111-8111-111111111111';
      await store().inbound.insertMessage(
        sampleMessage(mine, { id: id(1), receivedAt: T + 1n, routeId: route.value.id, rcptTo: 'Sales@Acme.example' }),
      );
      await store().inbound.insertMessage(
        sampleMessage(mine, { id: id(2), receivedAt: T + 2n, from: 'Boss@Corp.example', status: 'failed', raw: null }),
      );
      await store().inbound.insertMessage(
        sampleMessage(sibling, { id: id(3), receivedAt: T + 3n, inReplyToMessageId: sent, subject: 'Re: invoice' }),
      );
      await store().inbound.insertMessage(sampleMessage(stranger, { id: id(4), receivedAt: T + 4n }));
      const list = async (filter: object, page: object = {}) =>
        (
          await store().inbound.listMessageSummaries({ accountId: mine.accountId, ...filter }, { limit: 10, ...page })
        ).map((m) => m.id);

      expect(await list({})).toEqual([id(3), id(2), id(1)]);
      expect(await list({ subAccountId: mine.subAccountId })).toEqual([id(2), id(1)]);
      expect(await list({ subAccountId: stranger.subAccountId })).toEqual([]);
      expect(await list({ id: id(4) })).toEqual([]);
      expect(await list({ id: id(2) })).toEqual([id(2)]);
      expect(await list({ routeId: route.value.id })).toEqual([id(1)]);
      expect(await list({ status: 'failed' })).toEqual([id(2)]);
      expect(await list({ recipient: 'sales@acme.example' })).toEqual([id(1)]);
      expect(await list({ sender: 'boss@corp.example' })).toEqual([id(2)]);
      expect(await list({ search: 'INVOICE' })).toEqual([id(3)]);
      expect(await list({ inReplyToMessageId: sent })).toEqual([id(3)]);
      expect(await list({ from: T + 2n })).toEqual([id(3), id(2)]);
      expect(await list({ to: T + 2n })).toEqual([id(1)]);

      const [first, second] = await store().inbound.listMessageSummaries({ accountId: mine.accountId }, { limit: 10 });
      expect(first).toMatchObject({ id: id(3), subAccountId: sibling.subAccountId, routePattern: null, rawKept: true });
      expect(second).toMatchObject({ id: id(2), status: 'failed', rawKept: false });
      expect(second).not.toHaveProperty('raw');
      const [routed] = await store().inbound.listMessageSummaries(
        { accountId: mine.accountId, id: id(1) },
        { limit: 1 },
      );
      expect(routed).toMatchObject({ routeId: route.value.id, routePattern: route.value.pattern });
      await store().inbound.deleteRoute(mine.subAccountId, route.value.id);
      const [orphan] = await store().inbound.listMessageSummaries(
        { accountId: mine.accountId, id: id(1) },
        { limit: 1 },
      );
      expect(orphan).toMatchObject({ routeId: null, routePattern: null });
    });

    it('pages after a cursor (ties broken by id) and by offset', async () => {
      const mine = await receivingSubAccount(store());
      for (const [n, at] of [
        [1, T],
        [2, T + 1n],
        [3, T + 1n],
        [4, T + 2n],
      ] as const)
        await store().inbound.insertMessage(sampleMessage(mine, { id: id(n), receivedAt: at }));
      const filter = { accountId: mine.accountId };
      const page = async (after?: { at: bigint; id: string }) =>
        (await store().inbound.listMessageSummaries(filter, { limit: 2, ...(after && { after }) })).map((m) => m.id);
      expect(await page()).toEqual([id(4), id(3)]);
      expect(await page({ at: T + 1n, id: id(3) })).toEqual([id(2), id(1)]);
      expect(await page({ at: T, id: id(1) })).toEqual([]);
      const skipped = await store().inbound.listMessageSummaries(filter, { limit: 2, offset: 1 });
      expect(skipped.map((m) => m.id)).toEqual([id(3), id(2)]);
    });
  });
}
