import { vitest } from '../vitest.js';
import type { IdempotencyKeyRecord, MailplaneStore } from '../../store/index.js';
import { newAccount, newSubAccount, unique } from './fixtures.js';

const T = 1_800_000_000_000;
const DAY = 86_400_000;

/**
 * Idempotency keys: one claim wins (also concurrently, and inside transactions that roll back),
 * expired keys are found as absent and can be claimed again, keys are per sub-account, and
 * `deleteExpired` deletes only expired keys, at most `limit`.
 */
export function idempotencyStoreConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  const record = (subAccountId: number, key: string, createdMs = T, hash = 'h1'): IdempotencyKeyRecord => ({
    subAccountId,
    key,
    requestHash: hash,
    response: `[{"messageId":"${key}"}]`,
    createdMs,
    expiresMs: createdMs + DAY,
  });
  const subAccounts = async () => {
    const account = await newAccount(store());
    return [await newSubAccount(store(), account.id), await newSubAccount(store(), account.id)] as const;
  };

  describe('idempotency keys', () => {
    it('lets exactly one of many concurrent claims of a key win, and finds the winner', async () => {
      const [sub] = await subAccounts();
      const key = unique('key');
      const wins = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          store().transaction((tx) => tx.idempotency.claim(record(sub.id, key, T, `h${i}`))),
        ),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
      const found = await store().idempotency.find(sub.id, key, T + 1);
      expect(found).toMatchObject({
        subAccountId: sub.id,
        key,
        requestHash: `h${wins.indexOf(true)}`,
        response: `[{"messageId":"${key}"}]`,
        createdMs: T,
        expiresMs: T + DAY,
      });
    });

    it('keeps no key claimed in a transaction that rolls back', async () => {
      const [sub] = await subAccounts();
      await expect(
        store().transaction(async (tx) => {
          await tx.idempotency.claim(record(sub.id, 'rolled-back'));
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      expect(await store().idempotency.find(sub.id, 'rolled-back', T)).toBeNull();
      expect(await store().idempotency.claim(record(sub.id, 'rolled-back'))).toBe(true);
    });

    it('keeps keys per sub-account, treats an expired key as absent, and lets it be claimed again', async () => {
      const [a, b] = await subAccounts();
      expect(await store().idempotency.claim(record(a.id, 'k'))).toBe(true);
      expect(await store().idempotency.claim(record(b.id, 'k'))).toBe(true);
      expect(await store().idempotency.claim(record(a.id, 'k', T + DAY - 1, 'h2'))).toBe(false);
      expect(await store().idempotency.find(a.id, 'K', T)).toBeNull();
      expect(await store().idempotency.find(a.id, 'k', T + DAY)).toBeNull();
      expect(await store().idempotency.claim(record(a.id, 'k', T + DAY, 'h3'))).toBe(true);
      expect(await store().idempotency.find(a.id, 'k', T + DAY)).toMatchObject({
        requestHash: 'h3',
        createdMs: T + DAY,
      });
      expect(await store().idempotency.find(b.id, 'k', T)).toMatchObject({ requestHash: 'h1' });
    });

    it('deletes only expired keys, at most the limit', async () => {
      const [sub] = await subAccounts();
      for (let i = 0; i < 5; i++) await store().idempotency.claim(record(sub.id, `old-${i}`, T - DAY - i));
      await store().idempotency.claim(record(sub.id, 'live', T));
      expect(await store().idempotency.deleteExpired(T, 3)).toBe(3);
      expect(await store().idempotency.deleteExpired(T, 10)).toBe(2);
      expect(await store().idempotency.deleteExpired(T, 10)).toBe(0);
      expect(await store().idempotency.find(sub.id, 'live', T)).not.toBeNull();
    });
  });
}
