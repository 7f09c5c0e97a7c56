import { failure, success } from '../../store/outcome.js';
import type { DomainRecord, DomainStore } from '../../store/index.js';
import { contains, page, requireParent, toRecord, type MemoryContext } from './common.js';
import type { DomainRow } from './rows.js';
import type { TableRows } from './tables.js';

const owned = (tables: TableRows, subAccountId: number, id: number): DomainRow | undefined => {
  const row = tables.domains.get(id);
  return row?.subAccountId === subAccountId ? row : undefined;
};

const asDomain = (row: DomainRow): DomainRecord => toRecord(row);

/** {@link DomainStore} of the in-memory store. */
export function memoryDomainStore(ctx: MemoryContext): DomainStore {
  return {
    create: (input) =>
      ctx.write((tables) => {
        requireParent(tables.subAccounts.has(input.subAccountId), `sub-account ${input.subAccountId}`);
        const taken = [...tables.domains.values()].some(
          (d) => d.subAccountId === input.subAccountId && d.name === input.name,
        );
        if (taken) return failure('duplicate-name');
        const id = ctx.nextId('domains');
        const row: DomainRow = {
          key: id,
          id,
          ...structuredClone(input),
          dkimVerified: false,
          spfVerified: false,
          dmarcVerified: false,
          returnPathVerified: false,
          trackVerified: false,
          verified: false,
          dkimFailureReason: '',
          spfFailureReason: '',
          dmarcFailureReason: '',
          trackFailureReason: '',
          returnPathFailureReason: '',
          dnsProvider: '',
          domainRegisteredDate: '',
          lastCheckedAt: 0n,
          updated: input.created,
          dkimPending: null,
          dkimPrevious: null,
          dkimRotatedAt: 0n,
        };
        tables.domains.set(id, row);
        return success(asDomain(row));
      }),

    get: (subAccountId, id) =>
      ctx.read((tables) => {
        const row = owned(tables, subAccountId, id);
        return row ? asDomain(row) : null;
      }),

    list: (subAccountId, query) =>
      ctx.read((tables) => {
        const rows = [...tables.domains.values()].filter(
          (d) => d.subAccountId === subAccountId && contains(d.name, query.search),
        );
        return page(rows, query).map(asDomain);
      }),

    findByName: (subAccountId, name) =>
      ctx.read((tables) => {
        const row = [...tables.domains.values()].find((d) => d.subAccountId === subAccountId && d.name === name);
        return row ? asDomain(row) : null;
      }),

    updateVerification: (subAccountId, id, patch) =>
      ctx.write((tables) => {
        const row = owned(tables, subAccountId, id);
        if (!row) return null;
        const changes = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
        const next: DomainRow = { ...row, ...changes };
        tables.domains.set(id, next);
        return asDomain(next);
      }),

    updateDkimKeys: (subAccountId, id, ifPendingSelector, patch) =>
      ctx.write((tables) => {
        const row = owned(tables, subAccountId, id);
        if (!row || (row.dkimPending?.selector ?? '') !== ifPendingSelector) return null;
        const { current, pending, previous, rotatedAt, ...flags } = patch;
        const changes: Partial<DomainRow> = Object.fromEntries(
          Object.entries(flags).filter(([, value]) => value !== undefined),
        );
        if (current)
          Object.assign(changes, {
            dkimSelector: current.selector,
            dkimPublicKey: current.publicKey,
            dkimPrivateKeySealed: current.privateKeySealed,
          });
        if (pending !== undefined) changes.dkimPending = pending;
        if (previous !== undefined) changes.dkimPrevious = previous;
        if (rotatedAt !== undefined) changes.dkimRotatedAt = rotatedAt;
        const next: DomainRow = { ...row, ...changes };
        tables.domains.set(id, structuredClone(next));
        return asDomain(next);
      }),

    delete: (subAccountId, id) =>
      ctx.write((tables) => {
        if (!owned(tables, subAccountId, id)) return false;
        // As the schema's ON DELETE CASCADE: the domain no longer receives.
        tables.inboundDomains.delete(id);
        return tables.domains.delete(id);
      }),
  };
}
