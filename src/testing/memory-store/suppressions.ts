import type { NewSuppression, SuppressionRecord, SuppressionStore } from '../../store/index.js';
import { contains, page, toRecord, type MemoryContext } from './common.js';
import type { SuppressionRow } from './rows.js';

/** The primary key of a suppression: its sub-account and the lower-cased address. */
const keyOf = (subAccountId: number, email: string) => `${subAccountId}\u0000${email.toLowerCase()}`;

const asSuppression = (row: SuppressionRow): SuppressionRecord => toRecord(row);

/** {@link SuppressionStore} of the in-memory store. */
export function memorySuppressionStore(ctx: MemoryContext): SuppressionStore {
  return {
    add: (subAccountId, entries) =>
      ctx.write((tables) => {
        // A deleted sub-account gets nothing (an unsubscribe or bounce that arrives late).
        if (!tables.subAccounts.has(subAccountId)) return [];
        // The first entry of an address wins; an address already stored keeps its record.
        const firstOf = new Map<string, NewSuppression>();
        for (const entry of entries) {
          const key = keyOf(subAccountId, entry.email);
          if (!firstOf.has(key)) firstOf.set(key, entry);
        }
        // New records take their ids in address order, as the Kysely store inserts them (its
        // lock order), so `list` shows one call's addresses alphabetically on every store.
        for (const [key, entry] of [...firstOf].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
          if (tables.suppressions.has(key)) continue;
          const id = ctx.nextId('suppressions');
          tables.suppressions.set(key, {
            key,
            id,
            subAccountId,
            email: entry.email,
            type: entry.type,
            smtpError: entry.smtpError ?? '',
            created: entry.created,
          });
        }
        return [...firstOf.keys()].map((key) => asSuppression(tables.suppressions.get(key)!));
      }),

    remove: (subAccountId, emails) =>
      ctx.write((tables) => {
        const keys = new Set(emails.map((email) => keyOf(subAccountId, email)));
        let removed = 0;
        for (const key of keys) if (tables.suppressions.delete(key)) removed++;
        return removed;
      }),

    list: (subAccountId, filter) =>
      ctx.read((tables) => {
        const rows = [...tables.suppressions.values()].filter(
          (s) =>
            s.subAccountId === subAccountId &&
            (filter.createdFrom === undefined || s.created >= filter.createdFrom) &&
            (filter.createdBefore === undefined || s.created < filter.createdBefore) &&
            (filter.type === undefined || s.type === filter.type) &&
            contains(s.email, filter.search),
        );
        return page(rows, filter).map(asSuppression);
      }),

    find: (subAccountId, email) =>
      ctx.read((tables) => {
        const row = tables.suppressions.get(keyOf(subAccountId, email));
        return row ? asSuppression(row) : null;
      }),

    isSuppressed: (subAccountId, email) => ctx.read((tables) => tables.suppressions.has(keyOf(subAccountId, email))),

    suppressedAmong: (subAccountId, emails) =>
      ctx.read((tables) => [...new Set(emails)].filter((email) => tables.suppressions.has(keyOf(subAccountId, email)))),
  };
}
