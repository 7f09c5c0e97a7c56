import { vitest } from '../vitest.js';
import type { MailplaneStore, NewWebhookDelivery } from '../../store/index.js';
import { newAccount } from './fixtures.js';
import { sampleWebhook } from './webhooks.js';

const T = 1_780_000_000_000_000_000n;

/** The webhook delivery log: appended per attempt, read newest first per webhook and account, purged by age. */
export function webhookDeliveryConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  describe('webhook delivery log', () => {
    const hookOf = async (accountId: number, url: string) => {
      const outcome = await store().webhooks.create(sampleWebhook(accountId, url));
      if (!outcome.ok) throw new Error(`fixture webhook ${url}: ${outcome.reason}`);
      return outcome.value;
    };
    const entry = (
      accountId: number,
      webhookId: number,
      created: bigint,
      patch: Partial<NewWebhookDelivery> = {},
    ): NewWebhookDelivery => ({
      accountId,
      webhookId,
      eventId: `ev-${created}`,
      replayId: null,
      attempt: 1,
      result: 'delivered',
      status: 200,
      error: null,
      durationMs: 12,
      created,
      nextRetryAt: null,
      ...patch,
    });

    it("answers a webhook's attempts newest first, paged, and only to its account", async () => {
      const account = await newAccount(store());
      const other = await newAccount(store());
      const hook = await hookOf(account.id, 'https://log.example/a');
      const second = await hookOf(account.id, 'https://log.example/b');
      const foreign = await hookOf(other.id, 'https://log.example/a');
      const retry = entry(account.id, hook.id, T + 1n, {
        result: 'will-retry',
        status: 500,
        error: 'HTTP 500',
        nextRetryAt: T + 60n,
        replayId: 'r-1',
      });
      await store().webhooks.recordDeliveries([
        entry(account.id, hook.id, T),
        retry,
        entry(account.id, second.id, T + 5n),
        entry(other.id, foreign.id, T + 9n),
      ]);
      await store().webhooks.recordDeliveries([entry(account.id, hook.id, T + 2n, { attempt: 2 })]);
      await store().webhooks.recordDeliveries([]);

      const log = await store().webhooks.listDeliveries(account.id, hook.id, { limit: 10, offset: 0 });
      expect(log.map((d) => d.created)).toEqual([T + 2n, T + 1n, T]);
      expect(log[1]).toEqual({ ...retry, id: log[1]!.id });
      expect(typeof log[0]!.id).toBe('number');
      expect(
        (await store().webhooks.listDeliveries(account.id, hook.id, { limit: 1, offset: 1 })).map((d) => d.created),
      ).toEqual([T + 1n]);
      // Another account's webhook id reads as empty.
      expect(await store().webhooks.listDeliveries(account.id, foreign.id, { limit: 10, offset: 0 })).toEqual([]);
      expect(await store().webhooks.listDeliveries(other.id, hook.id, { limit: 10, offset: 0 })).toEqual([]);
    });

    it("deletes a webhook's log with it, and old rows in bounded batches", async () => {
      const account = await newAccount(store());
      const hook = await hookOf(account.id, 'https://log.example/gone');
      const kept = await hookOf(account.id, 'https://log.example/kept');
      await store().webhooks.recordDeliveries([entry(account.id, hook.id, T)]);
      await store().webhooks.recordDeliveries([0n, 1n, 2n, 10n].map((at) => entry(account.id, kept.id, T + at)));
      await store().webhooks.delete(account.id, hook.id);
      expect(await store().webhooks.listDeliveries(account.id, hook.id, { limit: 10, offset: 0 })).toEqual([]);

      expect(await store().webhooks.deleteDeliveriesBefore(T + 5n, 2)).toBe(2);
      expect(await store().webhooks.deleteDeliveriesBefore(T + 5n, 2)).toBe(1);
      expect(await store().webhooks.deleteDeliveriesBefore(T + 5n, 2)).toBe(0);
      expect(
        (await store().webhooks.listDeliveries(account.id, kept.id, { limit: 10, offset: 0 })).map((d) => d.created),
      ).toEqual([T + 10n]);
    });
  });
}
