import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MailplaneStore } from 'mailplane';
import { createGroupCommit } from '../../src/store/group-commit.js';
import { newAccount, newSubAccount } from '../../src/testing/conformance/fixtures.js';
import { openTestStore, storeKinds } from '../support/databases.js';

describe.each(storeKinds)('group commit on %s', (kind) => {
  let store: MailplaneStore;
  let close: () => Promise<void>;
  beforeEach(async () => {
    ({ store, close } = await openTestStore(kind));
  });
  afterEach(() => close());

  const counted = (accountId: number, subAccountId: number) => (tx: MailplaneStore) =>
    tx.stats.increment([{ accountId, subAccountId, day: '2026-01-01', group: '', counters: { processed: 1 } }]);

  it('commits every one of 100 concurrent writes, sharing transactions', async () => {
    const account = await newAccount(store);
    const sub = await newSubAccount(store, account.id);
    let transactions = 0;
    const counting: MailplaneStore = {
      ...store,
      transaction: (work) => {
        transactions++;
        return store.transaction(work);
      },
    };
    const writes = createGroupCommit(counting);
    await Promise.all(Array.from({ length: 100 }, () => writes.commit(counted(account.id, sub.id))));
    expect((await store.stats.total({ accountId: account.id }, '2026-01-01', '2026-01-01')).processed).toBe(100);
    expect(transactions).toBeLessThan(100);
  });

  it('fails only the faulty write of a group; the others commit', async () => {
    const account = await newAccount(store);
    const sub = await newSubAccount(store, account.id);
    const writes = createGroupCommit(store);
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        writes.commit(async (tx) => {
          await counted(account.id, sub.id)(tx);
          if (i === 4) throw new Error('write 4 is faulty');
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect((await store.stats.total({ accountId: account.id }, '2026-01-01', '2026-01-01')).processed).toBe(9);
  });
});
