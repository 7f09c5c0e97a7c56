import {
  suppressionKey,
  suppressionKeysOf,
  type NewSuppression,
  type SuppressionOwner,
  type SuppressionRecord,
  type SuppressionStore,
} from '../../store/index.js';
import { contains, page, toRecord, type MemoryContext } from './common.js';
import type { SuppressionRow } from './rows.js';
import type { TableRows } from './tables.js';

/** The owner part of a row's key: a sub-account's list and an account's never share one. */
const ownerKeyOf = (owner: SuppressionOwner) => (typeof owner === 'number' ? `s${owner}` : `a${owner.accountId}`);

/** The primary key of a suppression: its list and the lower-cased address. */
const keyOf = (owner: SuppressionOwner, email: string) => `${ownerKeyOf(owner)}\u0000${suppressionKey(email)}`;

const asSuppression = (row: SuppressionRow): SuppressionRecord => toRecord(row);

const ownsRow = (owner: SuppressionOwner, row: SuppressionRow) =>
  typeof owner === 'number' ? row.subAccountId === owner : row.accountId === owner.accountId;

const ownerExists = (tables: TableRows, owner: SuppressionOwner) =>
  typeof owner === 'number' ? tables.subAccounts.has(owner) : tables.accounts.has(owner.accountId);

const isLive = (row: SuppressionRow | undefined, now: bigint) =>
  row !== undefined && (row.expires === null || row.expires > now);

/** Whether `email` is suppressed for the sub-account at `now`: its list or its account's, the address or `*@` its domain. */
function suppressedFor(tables: TableRows, subAccountId: number, email: string, now: bigint): boolean {
  const accountId = tables.subAccounts.get(subAccountId)?.accountId;
  const owners: SuppressionOwner[] = accountId === undefined ? [subAccountId] : [subAccountId, { accountId }];
  return owners.some((owner) =>
    suppressionKeysOf(email).some((key) => isLive(tables.suppressions.get(keyOf(owner, key)), now)),
  );
}

/** {@link SuppressionStore} of the in-memory store. */
export function memorySuppressionStore(ctx: MemoryContext): SuppressionStore {
  return {
    add: (owner, entries) =>
      ctx.write((tables) => {
        // A deleted sub-account gets nothing (an unsubscribe or bounce that arrives late).
        if (!ownerExists(tables, owner)) return [];
        // The first entry of an address wins; an address already stored keeps its record.
        const firstOf = new Map<string, NewSuppression>();
        for (const entry of entries) {
          const key = keyOf(owner, entry.email);
          if (!firstOf.has(key)) firstOf.set(key, entry);
        }
        // New records take their ids in address order, as the Kysely store inserts them (its
        // lock order), so `list` shows one call's addresses alphabetically on every store.
        for (const [key, entry] of [...firstOf].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
          const stored = tables.suppressions.get(key);
          // Only a record expired by the time of the new entry gives way to it (keeping its id).
          if (stored && (stored.expires === null || stored.expires > entry.created)) continue;
          tables.suppressions.set(key, {
            key,
            id: stored?.id ?? ctx.nextId('suppressions'),
            subAccountId: typeof owner === 'number' ? owner : null,
            accountId: typeof owner === 'number' ? null : owner.accountId,
            email: entry.email,
            type: entry.type,
            smtpError: entry.smtpError ?? '',
            created: entry.created,
            expires: entry.expires ?? null,
          });
        }
        return [...firstOf.keys()].map((key) => asSuppression(tables.suppressions.get(key)!));
      }),

    remove: (owner, emails) =>
      ctx.write((tables) => {
        const keys = new Set(emails.map((email) => keyOf(owner, email)));
        let removed = 0;
        for (const key of keys) if (tables.suppressions.delete(key)) removed++;
        return removed;
      }),

    list: (owner, filter) =>
      ctx.read((tables) => {
        const rows = [...tables.suppressions.values()].filter(
          (s) =>
            ownsRow(owner, s) &&
            (filter.createdFrom === undefined || s.created >= filter.createdFrom) &&
            (filter.createdBefore === undefined || s.created < filter.createdBefore) &&
            (filter.type === undefined || s.type === filter.type) &&
            (filter.afterId === undefined || s.id > filter.afterId) &&
            contains(s.email, filter.search),
        );
        return page(rows, filter).map(asSuppression);
      }),

    find: (owner, email) =>
      ctx.read((tables) => {
        const row = tables.suppressions.get(keyOf(owner, email));
        return row ? asSuppression(row) : null;
      }),

    isSuppressed: (subAccountId, email, now) => ctx.read((tables) => suppressedFor(tables, subAccountId, email, now)),

    suppressedAmong: (subAccountId, emails, now) =>
      ctx.read((tables) => [...new Set(emails)].filter((email) => suppressedFor(tables, subAccountId, email, now))),

    deleteExpired: (now, limit) =>
      ctx.write((tables) => {
        let deleted = 0;
        for (const row of [...tables.suppressions.values()]) {
          if (deleted >= limit) break;
          if (row.expires !== null && row.expires <= now && tables.suppressions.delete(row.key)) deleted++;
        }
        return deleted;
      }),
  };
}
