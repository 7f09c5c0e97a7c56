import { zeroCounters } from '../../stats/counters.js';
import {
  ALL_MAIL,
  STORED_COUNTERS,
  type StatsScope,
  type StatsStore,
  type StoredCounter,
  type StoredCounters,
} from '../../store/stats-store.js';
import type { MemoryContext } from './common.js';
import type { StatsRow } from './rows.js';
import type { TableRows } from './tables.js';

function addInto(target: StoredCounters, counters: Partial<Record<StoredCounter, number>>): void {
  for (const name of STORED_COUNTERS) target[name] += counters[name] ?? 0;
}

/** The rows of `scope` on the days of [from, to]. */
const scoped = (tables: TableRows, scope: StatsScope, from: string, to: string): StatsRow[] =>
  [...tables.stats.values()].filter(
    (row) =>
      row.accountId === scope.accountId &&
      row.group === (scope.group ?? ALL_MAIL) &&
      row.day >= from &&
      row.day <= to &&
      (scope.subAccountId === undefined || row.subAccountId === scope.subAccountId),
  );

/** {@link StatsStore} of the in-memory store: one counters row per sub-account, day and group. */
export function memoryStatsStore(ctx: MemoryContext): StatsStore {
  return {
    increment: (entries) =>
      ctx.write((tables) => {
        for (const entry of entries) {
          const key = `${entry.subAccountId}\u0000${entry.day}\u0000${entry.group}`;
          const row = tables.stats.get(key);
          const counters = row ? { ...row.counters } : zeroCounters();
          addInto(counters, entry.counters);
          tables.stats.set(key, {
            key,
            accountId: row?.accountId ?? entry.accountId,
            subAccountId: entry.subAccountId,
            day: entry.day,
            group: entry.group,
            counters,
          });
        }
      }),

    daily: (scope, from, to) =>
      ctx.read((tables) => {
        const days = new Map<string, StoredCounters>();
        for (const row of scoped(tables, scope, from, to)) {
          const counters = days.get(row.day) ?? zeroCounters();
          addInto(counters, row.counters);
          days.set(row.day, counters);
        }
        return [...days].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, counters]) => ({ day, counters }));
      }),

    total: (scope, from, to) =>
      ctx.read((tables) => {
        const counters = zeroCounters();
        for (const row of scoped(tables, scope, from, to)) addInto(counters, row.counters);
        return counters;
      }),

    groups: (scope, from, to, limit) =>
      ctx.read((tables) => {
        const names = new Set<string>();
        for (const row of tables.stats.values()) {
          if (row.accountId !== scope.accountId || row.group === ALL_MAIL || row.day < from || row.day > to) continue;
          if (scope.subAccountId === undefined || row.subAccountId === scope.subAccountId) names.add(row.group);
        }
        // Code-unit order, as the databases' binary collation of the column.
        return [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).slice(0, limit);
      }),
  };
}
