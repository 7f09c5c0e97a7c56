/**
 * Migration 0020-webhook-secrets on a store written by an earlier version: a webhook created
 * before it reads back with no previous secret, no failure streak, not disabled and no replay, and
 * takes the new state (rotation, streak, claim) afterwards.
 */
import { describe, expect, it } from 'vitest';
import { kyselyStore, migrateToLatest } from '../../adapters/storage/kysely/index.js';
import { storeKinds } from '../support/databases.js';
import { insertWebhookBefore0032, withDatabaseAt } from '../support/migration-db.js';

describe.each(storeKinds)('migration 0020-webhook-secrets on %s', (kind) => {
  it('adds the rotation, streak and replay state to existing webhooks, empty', async () => {
    await withDatabaseAt(kind, '0015-activity', async (db, dialect) => {
      const before = kyselyStore({ db, dialect });
      const account = await before.accounts.create({ name: 'old', apiKeyHash: 'h', apiKeySealed: 's', created: 1n });
      const id = await insertWebhookBefore0032(db, account.id, 'https://old.example/hook');

      await migrateToLatest(db, dialect);
      const store = kyselyStore({ db, dialect });
      expect(await store.webhooks.get(account.id, id)).toMatchObject({
        url: 'https://old.example/hook',
        secretSealed: 'sealed',
        previousSecretSealed: null,
        previousSecretUntil: null,
        failingSince: null,
        disabledReason: null,
        disabledAt: null,
        replayId: null,
        replayClaimedAt: null,
      });
      await store.webhooks.update(account.id, id, {
        secretSealed: 'new',
        previousSecretSealed: 'sealed',
        previousSecretUntil: 99n,
        updated: 6n,
      });
      expect(
        await store.webhooks.recordDeliveryOutcome(account.id, id, {
          ok: false,
          at: 10n,
          disableAfter: 5n,
          reason: 'r',
        }),
      ).toBeNull();
      expect(
        await store.webhooks.recordDeliveryOutcome(account.id, id, {
          ok: false,
          at: 15n,
          disableAfter: 5n,
          reason: 'r',
        }),
      ).toMatchObject({
        enabled: false,
        disabledReason: 'r',
        disabledAt: 15n,
        failingSince: 10n,
        previousSecretUntil: 99n,
      });
      expect(await store.webhooks.claimReplay(account.id, id, { replayId: 'x', at: 20n, staleBefore: 0n })).toBe(true);
    });
  });
});
