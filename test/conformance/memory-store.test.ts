import { describe, expect, it } from 'vitest';
import { createMemoryStore, newAccount, newSubAccount, runStoreConformance, sampleSubAccount } from 'mailplane/testing';
import type { MailplaneStore } from 'mailplane';

runStoreConformance({ name: 'in-memory store', create: async () => createMemoryStore() });

// What the shared suite cannot check on every store (a read on the outer store during a
// transaction would wait forever for SQLite's single connection), checked on the in-memory one.
describe('in-memory store: isolation and ownership', () => {
  it('shows a transaction’s writes to the outer store only once it commits', async () => {
    const store = createMemoryStore();
    const account = await newAccount(store);
    const page = { limit: 10, offset: 0 };
    await store.transaction(async (tx) => {
      const created = await tx.subAccounts.create(sampleSubAccount(account.id, 'Pending'));
      expect(created.ok).toBe(true);
      expect(await tx.subAccounts.list(account.id, page)).toHaveLength(1);
      expect(await store.subAccounts.list(account.id, page)).toEqual([]);
    });
    expect((await store.subAccounts.list(account.id, page)).map((s) => s.name)).toEqual(['Pending']);
  });

  it('makes a write outside a transaction wait for it, so neither is lost', async () => {
    const store = createMemoryStore();
    const account = await newAccount(store);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = store.transaction(async (tx) => {
      await tx.stats.increment([
        { accountId: account.id, subAccountId: 1, day: '2026-01-01', group: '', counters: { processed: 1 } },
      ]);
      await held;
    });
    const outside = store.stats.increment([
      { accountId: account.id, subAccountId: 1, day: '2026-01-01', group: '', counters: { processed: 10 } },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await store.stats.total({ accountId: account.id }, '2026-01-01', '2026-01-01')).processed).toBe(0);
    release();
    await Promise.all([transaction, outside]);
    expect((await store.stats.total({ accountId: account.id }, '2026-01-01', '2026-01-01')).processed).toBe(11);
  });

  it('hands out copies: changing a record or an input afterwards changes nothing stored', async () => {
    const store = createMemoryStore();
    const account = await newAccount(store);
    const input = sampleSubAccount(account.id, 'Original');
    const outcome = await store.subAccounts.create(input);
    if (!outcome.ok) throw new Error('create failed');
    outcome.value.name = 'Changed';
    input.smtpAuth.username = 'changed';
    const stored = await store.subAccounts.get(account.id, outcome.value.id);
    expect(stored?.name).toBe('Original');
    stored!.name = 'Again';
    expect((await store.subAccounts.get(account.id, outcome.value.id))?.name).toBe('Original');
    expect(await store.subAccounts.findBySmtpUsername('changed')).toBeNull();
  });

  it('refuses calls after close, and a transaction’s store after the transaction ended', async () => {
    const store = createMemoryStore();
    const account = await newAccount(store);
    let leaked: MailplaneStore | undefined;
    await store.transaction(async (tx) => {
      leaked = tx;
    });
    await expect(newSubAccount(leaked!, account.id)).rejects.toThrow(/transaction has already ended/);
    await store.close();
    await expect(store.accounts.get(account.id)).rejects.toThrow(/closed/);
    await expect(newAccount(store)).rejects.toThrow(/closed/);
  });
});
