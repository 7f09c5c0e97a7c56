import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventType, type MailplaneStore } from 'mailplane';
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

  it('writes made in one turn of the event loop share one transaction, even when each comes from its own callback', async () => {
    // As requests read from several sockets in one poll phase: each reaches its commit in a
    // callback of its own. On SQLite a transaction started at the first one would be over (its
    // statements are synchronous) before the second callback ran, and each would commit alone.
    const account = await newAccount(store);
    const sub = await newSubAccount(store, account.id);
    let transactions = 0;
    const counting: MailplaneStore = { ...store, transaction: (work) => (transactions++, store.transaction(work)) };
    const writes = createGroupCommit(counting);
    const committed = await Promise.all(
      Array.from(
        { length: 10 },
        () =>
          new Promise<void>((resolve, reject) =>
            setImmediate(() => writes.commit(counted(account.id, sub.id)).then(resolve, reject)),
          ),
      ),
    );
    expect(committed).toHaveLength(10);
    expect(transactions).toBe(1);
    expect((await store.stats.total({ accountId: account.id }, '2026-01-01', '2026-01-01')).processed).toBe(10);
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
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    expect((await store.stats.total({ accountId: account.id }, '2026-01-01', '2026-01-01')).processed).toBe(9);
  });

  it('with a linger, writes that arrive one by one share a transaction; without, each commits alone', async () => {
    const account = await newAccount(store);
    const sub = await newSubAccount(store, account.id);
    const runs = { count: 0 };
    const counting: MailplaneStore = { ...store, transaction: (work) => (runs.count++, store.transaction(work)) };
    const trickle = async (linger: number) => {
      const writes = createGroupCommit(counting, 64, linger);
      const pending: Promise<void>[] = [];
      for (let i = 0; i < 10; i++) {
        pending.push(writes.commit(counted(account.id, sub.id)));
        await new Promise((resolve) => setImmediate(resolve)); // the previous one has committed by now
      }
      await Promise.all(pending);
    };
    await trickle(0);
    // Each write found the one before it committed (SQLite) or committing (PostgreSQL): several transactions.
    expect(runs.count).toBeGreaterThan(1);
    runs.count = 0;
    // Ten turns of the event loop take well under a millisecond; a linger of a second leaves a margin
    // no loaded machine crosses (CI once saw four transactions with 50 ms).
    await trickle(1_000);
    expect(runs.count).toBe(1);
    expect((await store.stats.total({ accountId: account.id }, '2026-01-01', '2026-01-01')).processed).toBe(20);
  });

  it('events and counters gathered from a group are written together, and a faulty one fails alone', async () => {
    const account = await newAccount(store);
    const sub = await newSubAccount(store, account.id);
    const writes = createGroupCommit(store, 64, 20);
    const event = (id: string) => ({
      id,
      messageId: `m-${id}`,
      accountId: account.id,
      subAccountId: sub.id,
      type: EventType.Processed,
      created: 1n,
      metadata: {},
    });
    const results = await Promise.allSettled(
      ['e1', 'e2', 'e1', 'e3'].map((id) =>
        writes.commit(async (tx) => {
          await tx.messages.addEvents([event(id)]);
          await counted(account.id, sub.id)(tx);
        }),
      ),
    );
    // The second e1 repeats an event id: it fails on its own, the other three commit in full.
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((await store.stats.total({ accountId: account.id }, '2026-01-01', '2026-01-01')).processed).toBe(3);
    for (const id of ['e1', 'e2', 'e3']) expect(await store.messages.listEvents(`m-${id}`)).toHaveLength(1);
  });
});
