/**
 * Migration 0025-webhook-deliveries on a store written by an earlier version: a webhook created
 * before it gets an empty delivery log that takes attempts afterwards, and deleting the webhook
 * deletes its log.
 */
import { describe, expect, it } from 'vitest';
import { kyselyStore, migrateToLatest } from '../../adapters/storage/kysely/index.js';
import { storeKinds } from '../support/databases.js';
import { insertWebhookBefore0032, withDatabaseAt } from '../support/migration-db.js';

describe.each(storeKinds)('migration 0025-webhook-deliveries on %s', (kind) => {
  it('gives existing webhooks an empty delivery log that records and purges attempts', async () => {
    await withDatabaseAt(kind, '0024-event-keys', async (db, dialect) => {
      const before = kyselyStore({ db, dialect });
      const account = await before.accounts.create({ name: 'old', apiKeyHash: 'h', apiKeySealed: 's', created: 1n });
      const id = await insertWebhookBefore0032(db, account.id, 'https://old.example/hook');

      await migrateToLatest(db, dialect);
      const store = kyselyStore({ db, dialect });
      expect(await store.webhooks.listDeliveries(account.id, id, { limit: 10, offset: 0 })).toEqual([]);
      const attempt = {
        accountId: account.id,
        webhookId: id,
        eventId: 'e1',
        replayId: null,
        attempt: 1,
        status: 500,
        error: 'HTTP 500',
        durationMs: 3,
        nextRetryAt: 70n,
      } as const;
      await store.webhooks.recordDeliveries([
        { ...attempt, result: 'will-retry', created: 10n },
        { ...attempt, attempt: 2, result: 'gave-up', created: 80n, nextRetryAt: null },
      ]);
      expect(
        (await store.webhooks.listDeliveries(account.id, id, { limit: 10, offset: 0 })).map((d) => [
          d.attempt,
          d.result,
          d.nextRetryAt,
        ]),
      ).toEqual([
        [2, 'gave-up', null],
        [1, 'will-retry', 70n],
      ]);
      expect(await store.webhooks.deleteDeliveriesBefore(50n, 10)).toBe(1);
      await store.webhooks.delete(account.id, id);
      expect(await store.webhooks.listDeliveries(account.id, id, { limit: 10, offset: 0 })).toEqual([]);
    });
  });
});
