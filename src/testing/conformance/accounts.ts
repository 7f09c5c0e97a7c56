import { vitest } from '../vitest.js';
import type { MailplaneStore } from '../../store/index.js';
import { newAccount, sampleSubAccount } from './fixtures.js';

/** Accounts and sub-accounts: keys, names, scoping, SMTP credentials. */
export function accountStoreConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  describe('accounts', () => {
    it('finds an account by key hash and by id, and replaces its key', async () => {
      const account = await newAccount(store());
      expect(await store().accounts.get(account.id)).toEqual(account);
      expect(await store().accounts.findByApiKeyHash(account.apiKeyHash)).toEqual(account);
      expect(await store().accounts.findByApiKeyHash('nope')).toBeNull();
      await store().accounts.setApiKey(account.id, 'new-hash', 'new-sealed');
      expect((await store().accounts.findByApiKeyHash('new-hash'))?.id).toBe(account.id);
      expect(await store().accounts.findByApiKeyHash(account.apiKeyHash)).toBeNull();
    });

    it('keeps nanosecond timestamps exact beyond 2^53', async () => {
      const created = 1_733_844_681_120_384_511n;
      const account = await store().accounts.create({ name: 'ns', apiKeyHash: 'h', apiKeySealed: 's', created });
      expect((await store().accounts.get(account.id))?.created).toBe(created);
    });

    it('answers first() with the oldest account', async () => {
      expect(await store().accounts.first()).toBeNull();
      const a = await newAccount(store(), 'a');
      await newAccount(store(), 'b');
      expect((await store().accounts.first())?.id).toBe(a.id);
    });
  });

  describe('sub-accounts', () => {
    it('creates a sub-account with its SMTP credentials and reads it back', async () => {
      const account = await newAccount(store());
      const input = sampleSubAccount(account.id, 'Hooli');
      const outcome = await store().subAccounts.create(input);
      expect(outcome.ok).toBe(true);
      if (!outcome.ok) return;
      const created = outcome.value;
      expect(created).toMatchObject({ name: 'Hooli', type: 1, blocked: false, blockedAt: 0n, defaultIpPoolId: null });
      expect(await store().subAccounts.get(account.id, created.id)).toEqual(created);
      expect(await store().subAccounts.findByApiKeyHash(input.apiKeyHash)).toEqual(created);
      const auths = await store().subAccounts.listSmtpAuths([created.id]);
      expect(auths.map((a) => a.username)).toEqual([input.smtpAuth.username]);
      const login = await store().subAccounts.findBySmtpUsername(input.smtpAuth.username);
      expect(login?.subAccount).toEqual(created);
      expect(login?.smtpAuth).toEqual(auths[0]);
      expect(await store().subAccounts.findBySmtpUsername(`${input.smtpAuth.username}x`)).toBeNull();
    });

    it('refuses a duplicate name within the account, case-insensitively, but not across accounts', async () => {
      const a = await newAccount(store(), 'a');
      const b = await newAccount(store(), 'b');
      expect((await store().subAccounts.create(sampleSubAccount(a.id, 'Hooli'))).ok).toBe(true);
      expect(await store().subAccounts.create(sampleSubAccount(a.id, 'HOOLI'))).toEqual({
        ok: false,
        reason: 'duplicate-name',
      });
      expect((await store().subAccounts.create(sampleSubAccount(b.id, 'Hooli'))).ok).toBe(true);
    });

    it('lets exactly one of 20 concurrent creates of the same name succeed', async () => {
      const account = await newAccount(store());
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, () => store().subAccounts.create(sampleSubAccount(account.id, 'Race'))),
      );
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      expect(await store().subAccounts.list(account.id, { limit: 100, offset: 0 })).toHaveLength(1);
    });

    it('lists by id with limit, offset and a literal case-insensitive search', async () => {
      const account = await newAccount(store());
      for (const name of ['Alpha', 'beta', 'ALPHABET', '100%_done', '100 done']) {
        await store().subAccounts.create(sampleSubAccount(account.id, name));
      }
      const names = async (query: { limit: number; offset: number; search?: string }) =>
        (await store().subAccounts.list(account.id, query)).map((s) => s.name);
      expect(await names({ limit: 10, offset: 0 })).toEqual(['Alpha', 'beta', 'ALPHABET', '100%_done', '100 done']);
      expect(await names({ limit: 2, offset: 1 })).toEqual(['beta', 'ALPHABET']);
      expect(await names({ limit: 10, offset: 0, search: 'alpha' })).toEqual(['Alpha', 'ALPHABET']);
      expect(await names({ limit: 10, offset: 0, search: '%_' })).toEqual(['100%_done']);
    });

    it('scopes every read and write by account', async () => {
      const a = await newAccount(store(), 'a');
      const b = await newAccount(store(), 'b');
      const outcome = await store().subAccounts.create(sampleSubAccount(a.id, 'Mine'));
      if (!outcome.ok) throw new Error('create failed');
      const id = outcome.value.id;
      expect(await store().subAccounts.get(b.id, id)).toBeNull();
      expect(await store().subAccounts.list(b.id, { limit: 10, offset: 0 })).toEqual([]);
      expect(await store().subAccounts.update(b.id, id, { name: 'Stolen', updated: 2n })).toEqual({
        ok: false,
        reason: 'not-found',
      });
      expect(await store().subAccounts.delete(b.id, id)).toBe(false);
      expect((await store().subAccounts.get(a.id, id))?.name).toBe('Mine');
    });

    it('renames, blocks, and refuses a rename onto another name', async () => {
      const account = await newAccount(store());
      const first = await store().subAccounts.create(sampleSubAccount(account.id, 'One'));
      const second = await store().subAccounts.create(sampleSubAccount(account.id, 'Two'));
      if (!first.ok || !second.ok) throw new Error('create failed');
      const renamed = await store().subAccounts.update(account.id, first.value.id, { name: 'Uno', updated: 5n });
      expect(renamed.ok && renamed.value).toMatchObject({ name: 'Uno', updated: 5n });
      expect(await store().subAccounts.update(account.id, second.value.id, { name: 'UNO', updated: 6n })).toEqual({
        ok: false,
        reason: 'duplicate-name',
      });
      const blocked = await store().subAccounts.update(account.id, second.value.id, {
        blocked: true,
        blockedAt: 7n,
        blockReason: 'billing',
        updated: 7n,
      });
      expect(blocked.ok && blocked.value).toMatchObject({
        name: 'Two',
        blocked: true,
        blockedAt: 7n,
        blockReason: 'billing',
      });
      // Read back through other paths: by id, in the list, by key hash; the refused rename changed nothing.
      const stored = await store().subAccounts.list(account.id, { limit: 10, offset: 0 });
      expect(stored).toEqual([renamed.ok && renamed.value, blocked.ok && blocked.value]);
      expect(await store().subAccounts.get(account.id, second.value.id)).toEqual(blocked.ok && blocked.value);
      expect(await store().subAccounts.findByApiKeyHash(first.value.apiKeyHash)).toEqual(renamed.ok && renamed.value);
    });

    it('deletes a sub-account with its SMTP credentials', async () => {
      const account = await newAccount(store());
      const input = sampleSubAccount(account.id, 'Gone');
      const outcome = await store().subAccounts.create(input);
      if (!outcome.ok) throw new Error('create failed');
      expect(await store().subAccounts.delete(account.id, outcome.value.id)).toBe(true);
      expect(await store().subAccounts.get(account.id, outcome.value.id)).toBeNull();
      expect(await store().subAccounts.findBySmtpUsername(input.smtpAuth.username)).toBeNull();
      // Gone from every other reader too.
      expect(await store().subAccounts.findByApiKeyHash(input.apiKeyHash)).toBeNull();
      expect(await store().subAccounts.listSmtpAuths([outcome.value.id])).toEqual([]);
      expect(await store().subAccounts.list(account.id, { limit: 10, offset: 0, search: 'Gone' })).toEqual([]);
      expect(await store().subAccounts.delete(account.id, outcome.value.id)).toBe(false);
    });

    it('finds the default sub-account', async () => {
      const account = await newAccount(store());
      await store().subAccounts.create(sampleSubAccount(account.id, 'Custom'));
      const def = await store().subAccounts.create(sampleSubAccount(account.id, 'Default', 0));
      expect((await store().subAccounts.getDefault(account.id))?.id).toBe(def.ok ? def.value.id : -1);
    });
  });
}
