import type { AccountStore } from '../../store/index.js';
import { toRecord, toRecordOrNull, uniqueViolation, type MemoryContext } from './common.js';
import type { TableRows } from './tables.js';

const byKeyHash = (tables: TableRows, apiKeyHash: string) =>
  [...tables.accounts.values()].find((a) => a.apiKeyHash === apiKeyHash);

/** {@link AccountStore} of the in-memory store. */
export function memoryAccountStore(ctx: MemoryContext): AccountStore {
  return {
    create: (input) =>
      ctx.write((tables) => {
        if (byKeyHash(tables, input.apiKeyHash)) uniqueViolation('account API key hash');
        const id = ctx.nextId('accounts');
        const row = { ...structuredClone(input), id, key: id };
        tables.accounts.set(id, row);
        return toRecord(row);
      }),
    get: (id) => ctx.read((tables) => toRecordOrNull(tables.accounts.get(id))),
    findByApiKeyHash: (apiKeyHash) => ctx.read((tables) => toRecordOrNull(byKeyHash(tables, apiKeyHash))),
    first: () =>
      ctx.read((tables) => {
        const ids = [...tables.accounts.values()].map((a) => a.id);
        return ids.length === 0 ? null : toRecord(tables.accounts.get(Math.min(...ids))!);
      }),
    setApiKey: (id, apiKeyHash, apiKeySealed) =>
      ctx.write((tables) => {
        const row = tables.accounts.get(id);
        if (!row) return;
        const holder = byKeyHash(tables, apiKeyHash);
        if (holder && holder.id !== id) uniqueViolation('account API key hash');
        tables.accounts.set(id, { ...row, apiKeyHash, apiKeySealed });
      }),
  };
}
