import { vitest } from '../vitest.js';
import type { MailplaneStore, NewInboundPostAttempt } from '../../store/index.js';
import { receivingSubAccount, sampleMessage, T } from './inbound.js';

/** One POST of `messageId` of the owner at `created`. */
function attempt(
  owner: { accountId: number; subAccountId: number },
  messageId: string,
  created: bigint,
  extra: Partial<NewInboundPostAttempt> = {},
): NewInboundPostAttempt {
  return {
    messageId,
    accountId: owner.accountId,
    subAccountId: owner.subAccountId,
    routeId: 7,
    url: 'https://hooks.example.com/inbound',
    attempt: 1,
    result: 'will-retry',
    status: 500,
    error: 'HTTP 500',
    durationMs: 12,
    created,
    nextRetryAt: created + 60_000_000_000n,
    ...extra,
  };
}

/**
 * The received messages' post log and their retention per sub-account (src/store/inbound-post-log.ts,
 * `InboundStore.deleteMessagesBefore`'s scope).
 */
export function inboundPostLogConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  describe('inbound post log', () => {
    it("lists a message's attempts newest first, paged, only for its sub-account", async () => {
      const mine = await receivingSubAccount(store());
      const theirs = await receivingSubAccount(store());
      const message = sampleMessage(mine);
      const other = sampleMessage(mine);
      await store().inbound.insertMessage(message);
      await store().inbound.insertMessage(other);
      await store().inbound.recordPostAttempt(attempt(mine, message.id, T));
      const success = { attempt: 2, result: 'delivered', status: 200, error: null, nextRetryAt: null } as const;
      await store().inbound.recordPostAttempt(attempt(mine, message.id, T + 5n, success));
      await store().inbound.recordPostAttempt(attempt(mine, other.id, T + 9n));
      const log = await store().inbound.listPostAttempts(mine.subAccountId, message.id, { limit: 10, offset: 0 });
      expect(log).toEqual([
        { id: expect.any(Number), ...attempt(mine, message.id, T + 5n, success) },
        { id: expect.any(Number), ...attempt(mine, message.id, T) },
      ]);
      const page = await store().inbound.listPostAttempts(mine.subAccountId, message.id, { limit: 1, offset: 1 });
      expect(page.map((a) => a.created)).toEqual([T]);
      expect(await store().inbound.listPostAttempts(theirs.subAccountId, message.id, { limit: 10, offset: 0 })).toEqual(
        [],
      );
    });

    it('deletes at most `limit` attempts created before a time, and a message with its attempts', async () => {
      const mine = await receivingSubAccount(store());
      const kept = sampleMessage(mine, { receivedAt: T + 100n });
      const old = sampleMessage(mine, { receivedAt: T });
      await store().inbound.insertMessage(kept);
      await store().inbound.insertMessage(old);
      for (const at of [0n, 1n, 2n, 10n]) await store().inbound.recordPostAttempt(attempt(mine, kept.id, T + at));
      await store().inbound.recordPostAttempt(attempt(mine, old.id, T + 50n));
      expect(await store().inbound.deletePostAttemptsBefore(T + 10n, 2)).toBe(2);
      expect(await store().inbound.deletePostAttemptsBefore(T + 10n, 10)).toBe(1);
      const left = await store().inbound.listPostAttempts(mine.subAccountId, kept.id, { limit: 10, offset: 0 });
      expect(left.map((a) => a.created)).toEqual([T + 10n]);
      expect(await store().inbound.deleteMessagesBefore(T + 1n, 10)).toBe(1);
      expect(await store().inbound.listPostAttempts(mine.subAccountId, old.id, { limit: 10, offset: 0 })).toEqual([]);
      // The deleted message's attempt went with it: only the kept message's last one is left.
      expect(await store().inbound.deletePostAttemptsBefore(T + 1000n, 10)).toBe(1);
    });

    it("deletes old messages of one sub-account, or of every sub-account but some (retention's scope)", async () => {
      const own = await receivingSubAccount(store());
      const rest = await receivingSubAccount(store());
      for (const owner of [own, rest])
        for (const receivedAt of [T, T + 1n]) await store().inbound.insertMessage(sampleMessage(owner, { receivedAt }));
      const left = async (owner: { subAccountId: number }) =>
        (await store().inbound.listMessages(owner.subAccountId, { limit: 10, offset: 0 })).length;
      const ownScope = { subAccount: { accountId: own.accountId, subAccountId: own.subAccountId } };
      expect(await store().inbound.deleteMessagesBefore(T + 5n, 1, ownScope)).toBe(1);
      expect([await left(own), await left(rest)]).toEqual([1, 2]);
      // Another account's id with the sub-account's id selects nothing.
      const wrongAccount = { subAccount: { accountId: rest.accountId, subAccountId: own.subAccountId } };
      expect(await store().inbound.deleteMessagesBefore(T + 5n, 10, wrongAccount)).toBe(0);
      const others = { exceptSubAccountIds: [own.subAccountId] };
      expect(await store().inbound.deleteMessagesBefore(T + 5n, 10, others)).toBe(2);
      expect([await left(own), await left(rest)]).toEqual([1, 0]);
    });
  });
}
