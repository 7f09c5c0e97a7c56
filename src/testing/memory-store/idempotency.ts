import type { IdempotencyStore } from '../../store/index.js';
import type { MemoryContext } from './common.js';

const rowKey = (subAccountId: number, key: string) => `${subAccountId}:${key}`;

/** {@link IdempotencyStore} of the in-memory store: a claim is one write under the writers' lock. */
export function memoryIdempotencyStore(ctx: MemoryContext): IdempotencyStore {
  return {
    claim: (record) =>
      ctx.write((tables) => {
        const key = rowKey(record.subAccountId, record.key);
        const existing = tables.idempotencyKeys.get(key);
        if (existing && existing.expiresMs > record.createdMs) return false;
        tables.idempotencyKeys.set(key, { ...record, key });
        return true;
      }),

    find: (subAccountId, key, nowMs) =>
      ctx.read((tables) => {
        const row = tables.idempotencyKeys.get(rowKey(subAccountId, key));
        if (!row || row.expiresMs <= nowMs) return null;
        return {
          subAccountId: row.subAccountId,
          key,
          requestHash: row.requestHash,
          response: row.response,
          createdMs: row.createdMs,
          expiresMs: row.expiresMs,
        };
      }),

    deleteExpired: (nowMs, limit) =>
      ctx.write((tables) => {
        const stale = [...tables.idempotencyKeys.values()]
          .filter((r) => r.expiresMs <= nowMs)
          .slice(0, Math.max(0, limit));
        for (const r of stale) tables.idempotencyKeys.delete(r.key);
        return stale.length;
      }),
  };
}
