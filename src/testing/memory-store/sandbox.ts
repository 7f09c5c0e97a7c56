import type { SandboxMessageRecord, SandboxStore } from '../../store/index.js';
import { toRecord, type MemoryContext } from './common.js';

/** {@link SandboxStore} of the in-memory store: captured messages, trimmed per account on each capture. */
export function memorySandboxStore(ctx: MemoryContext): SandboxStore {
  const newestFirst = <R extends SandboxMessageRecord>(rows: Iterable<R>, accountId: number) =>
    [...rows].filter((row) => row.accountId === accountId).sort((a, b) => b.id - a.id);
  return {
    capture: (message, keep) =>
      ctx.write((tables) => {
        const id = ctx.nextId('sandboxMessages');
        const { raw, ...fields } = message;
        const row = { ...structuredClone(fields), raw: Buffer.from(raw), id, key: id };
        tables.sandboxMessages.set(id, row);
        for (const old of newestFirst(tables.sandboxMessages.values(), message.accountId).slice(Math.max(0, keep))) {
          tables.sandboxMessages.delete(old.id);
        }
        return { ...toRecord(row), raw: Buffer.from(row.raw) };
      }),

    list: (accountId, query) =>
      ctx.read((tables) =>
        newestFirst(tables.sandboxMessages.values(), accountId)
          .slice(query.offset, query.offset + query.limit)
          .map(({ raw: _raw, key: _key, ...summary }) => structuredClone(summary)),
      ),

    get: (accountId, id) =>
      ctx.read((tables) => {
        const row = tables.sandboxMessages.get(id);
        return row && row.accountId === accountId ? { ...toRecord(row), raw: Buffer.from(row.raw) } : null;
      }),

    domainsNamed: (name) =>
      ctx.read((tables) =>
        [...tables.domains.values()]
          .filter((row) => row.name === name)
          .sort((a, b) => a.id - b.id)
          .map((row) => toRecord(row)),
      ),
  };
}
