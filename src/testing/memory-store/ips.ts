import { failure, success } from '../../store/outcome.js';
import type { IpRecord, IpStore, TpspRecord, TpspStore } from '../../store/index.js';
import { contains, page, requireParent, toRecord, type MemoryContext } from './common.js';
import type { IpRow, TpspRow } from './rows.js';
import type { TableRows } from './tables.js';

const ownedIp = (tables: TableRows, accountId: number, id: number): IpRow | undefined => {
  const row = tables.ips.get(id);
  return row?.accountId === accountId ? row : undefined;
};

const ownedTpsp = (tables: TableRows, accountId: number, id: number): TpspRow | undefined => {
  const row = tables.tpsps.get(id);
  return row?.accountId === accountId ? row : undefined;
};

const asIp = (row: IpRow): IpRecord => toRecord(row);
const asTpsp = (row: TpspRow): TpspRecord => toRecord(row);

/** {@link IpStore} of the in-memory store. */
export function memoryIpStore(ctx: MemoryContext): IpStore {
  return {
    allocate: (accountId, ips) =>
      ctx.write((tables) => {
        requireParent(tables.accounts.has(accountId), `account ${accountId}`);
        // An address belongs to one account across the store, and the input may repeat one.
        const taken = new Set([...tables.ips.values()].map((ip) => ip.publicIp));
        for (const ip of ips) {
          if (taken.has(ip.publicIp)) return { ok: false, reason: 'already-allocated', address: ip.publicIp } as const;
          taken.add(ip.publicIp);
        }
        const created = ips.map((ip): IpRow => {
          const id = ctx.nextId('ips');
          return { key: id, id, ...structuredClone(ip), accountId, updated: ip.created };
        });
        for (const row of created) tables.ips.set(row.id, row);
        return success(created.map(asIp));
      }),

    get: (accountId, id) =>
      ctx.read((tables) => {
        const row = ownedIp(tables, accountId, id);
        return row ? asIp(row) : null;
      }),

    list: (accountId, query) =>
      ctx.read((tables) =>
        page(
          [...tables.ips.values()].filter((ip) => ip.accountId === accountId && contains(ip.publicIp, query.search)),
          query,
        ).map(asIp),
      ),

    findByAddresses: (accountId, addresses) =>
      ctx.read((tables) => {
        const wanted = new Set(addresses);
        const rows = [...tables.ips.values()].filter((ip) => ip.accountId === accountId && wanted.has(ip.publicIp));
        return page(rows, { offset: 0, limit: rows.length }).map(asIp);
      }),

    update: (accountId, id, patch) =>
      ctx.write((tables) => {
        const row = ownedIp(tables, accountId, id);
        if (!row) return null;
        const next: IpRow = { ...row, updated: patch.updated };
        if (patch.reverseDnsHostname !== undefined) next.reverseDnsHostname = patch.reverseDnsHostname;
        if (patch.state !== undefined) next.state = patch.state;
        if (patch.autoWarmupEnabled !== undefined) next.autoWarmupEnabled = patch.autoWarmupEnabled;
        if (patch.warmupStartedAt !== undefined) next.warmupStartedAt = patch.warmupStartedAt;
        tables.ips.set(id, next);
        return asIp(next);
      }),

    delete: (accountId, id) =>
      ctx.write((tables) => {
        const row = ownedIp(tables, accountId, id);
        if (!row) return failure('not-found');
        if (tables.poolIps.has(id)) return failure('in-pool');
        tables.ips.delete(id);
        // What the Kysely schema's cascades remove with it: the IP's warmup records.
        tables.warmupProgress.delete(id);
        for (const r of [...tables.dailySends.values()]) if (r.ipId === id) tables.dailySends.delete(r.key);
        for (const r of [...tables.warmupTraffic.values()]) if (r.ipId === id) tables.warmupTraffic.delete(r.key);
        return success(asIp(row));
      }),
  };
}

/** Another TPSP of the account with that name (case-insensitively), if any. */
const tpspNameTaken = (tables: TableRows, accountId: number, name: string, exceptId?: number) =>
  [...tables.tpsps.values()].some(
    (t) => t.accountId === accountId && t.id !== exceptId && t.name.toLowerCase() === name.toLowerCase(),
  );

/** {@link TpspStore} of the in-memory store. */
export function memoryTpspStore(ctx: MemoryContext): TpspStore {
  return {
    create: (input) =>
      ctx.write((tables) => {
        requireParent(tables.accounts.has(input.accountId), `account ${input.accountId}`);
        if (tpspNameTaken(tables, input.accountId, input.name)) return failure('duplicate-name');
        const id = ctx.nextId('tpsps');
        const row: TpspRow = { key: id, id, ...structuredClone(input), updated: input.created };
        tables.tpsps.set(id, row);
        return success(asTpsp(row));
      }),

    get: (accountId, id) =>
      ctx.read((tables) => {
        const row = ownedTpsp(tables, accountId, id);
        return row ? asTpsp(row) : null;
      }),

    list: (accountId, query) =>
      ctx.read((tables) =>
        page(
          [...tables.tpsps.values()].filter((t) => t.accountId === accountId && contains(t.name, query.search)),
          query,
        ).map(asTpsp),
      ),

    update: (accountId, id, patch) =>
      ctx.write((tables) => {
        const row = ownedTpsp(tables, accountId, id);
        // The Kysely store checks the name first: a rename of a missing TPSP to a taken name is a duplicate.
        if (patch.name !== undefined && tpspNameTaken(tables, accountId, patch.name, id))
          return failure('duplicate-name');
        if (!row) return failure('not-found');
        const changes = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
        const next: TpspRow = { ...row, ...changes };
        tables.tpsps.set(id, next);
        return success(asTpsp(next));
      }),

    delete: (accountId, id) =>
      ctx.write((tables) => {
        const row = ownedTpsp(tables, accountId, id);
        if (!row) return failure('not-found');
        if ([...tables.poolTpsps.values()].some((m) => m.tpspId === id)) return failure('in-pool');
        tables.tpsps.delete(id);
        return success(asTpsp(row));
      }),
  };
}
