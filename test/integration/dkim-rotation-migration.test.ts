/**
 * Migrations 0018-idempotency and 0021-dkim-rotation on a store written by an earlier version: a
 * domain added before reads with no rotation under way and can be rotated; the idempotency key
 * table takes claims.
 */
import { describe, expect, it } from 'vitest';
import { kyselyStore, migrateToLatest } from '../../adapters/storage/kysely/index.js';
import { storeKinds } from '../support/databases.js';
import { withDatabaseAt } from '../support/migration-db.js';

describe.each(storeKinds)('migrations 0018-idempotency and 0021-dkim-rotation on %s', (kind) => {
  it('keep the domains of an earlier version, with no rotation under way, and add the key table', async () => {
    await withDatabaseAt(kind, '0015-activity', async (db, dialect) => {
      const before = kyselyStore({ db, dialect });
      const account = await before.accounts.create({ name: 'a', apiKeyHash: 'h', apiKeySealed: 's', created: 1n });
      const sub = await before.subAccounts.create({
        accountId: account.id,
        name: 'sub',
        companyName: '',
        type: 1,
        apiKeyHash: 'sh',
        apiKeySealed: 'ss',
        created: 1n,
        smtpAuth: { username: 'u', passwordHash: 'p', passwordSealed: 'q' },
      });
      if (!sub.ok) throw new Error('sub-account');
      const columns = {
        sub_account_id: sub.value.id,
        name: 'old.example',
        dkim_selector: 'mp1',
        dkim_public_key: 'PUB',
        dkim_private_key_sealed: 'SEALED',
        return_path_host: 'r',
        return_path_target: 't',
        track_host: 'h',
        track_target: 't',
        created: 7n,
        updated: 7n,
      };
      await db
        .insertInto('domains')
        .values(columns as never)
        .execute();

      await migrateToLatest(db, dialect);
      const store = kyselyStore({ db, dialect });
      const domain = (await store.domains.findByName(sub.value.id, 'old.example'))!;
      expect(domain).toMatchObject({
        dkimSelector: 'mp1',
        dkimPublicKey: 'PUB',
        dkimPending: null,
        dkimPrevious: null,
        dkimRotatedAt: 0n,
      });
      const pending = { selector: 'mp1-x', publicKey: 'NEW', privateKeySealed: 'NS', created: 9n, failureReason: '' };
      expect(await store.domains.updateDkimKeys(sub.value.id, domain.id, '', { pending, updated: 9n })).toMatchObject({
        dkimPending: pending,
      });
      const record = {
        subAccountId: sub.value.id,
        key: 'k',
        requestHash: 'h',
        response: '[]',
        createdMs: 1,
        expiresMs: 2,
      };
      expect(await store.idempotency.claim(record)).toBe(true);
      expect(await store.idempotency.find(sub.value.id, 'k', 1)).toEqual(record);
    });
  });
});
