import { reputationBucketKey, zeroReputationCounters } from '../../lifecycle/reputation-counts.js';
import {
  REPUTATION_COUNTERS,
  type ReputationCounters,
  type ReputationScope,
  type ReputationStore,
} from '../../store/reputation-store.js';
import type { MemoryContext } from './common.js';
import type { ReputationRow } from './rows.js';
import type { TableRows } from './tables.js';

function addInto(target: ReputationCounters, counters: Partial<ReputationCounters>): void {
  for (const name of REPUTATION_COUNTERS) target[name] += counters[name] ?? 0;
}

/** Whether `row` is one of the buckets of `scope`. */
const inScope = (row: ReputationRow, scope: ReputationScope): boolean =>
  row.accountId === scope.accountId &&
  (scope.subAccountId === undefined || row.subAccountId === scope.subAccountId) &&
  (scope.domainId === undefined || row.domainId === scope.domainId) &&
  (scope.provider === undefined || row.provider === scope.provider) &&
  (scope.ipIds === undefined || scope.ipIds.includes(row.ipId));

const rowsBetween = (tables: TableRows, fromHour: number, toHour: number): ReputationRow[] =>
  [...tables.reputation.values()].filter((row) => row.hour >= fromHour && row.hour <= toHour);

/** {@link ReputationStore} of the in-memory store: one counters row per bucket. */
export function memoryReputationStore(ctx: MemoryContext): ReputationStore {
  return {
    increment: (entries) =>
      ctx.write((tables) => {
        for (const entry of entries) {
          const key = reputationBucketKey(entry);
          const counters = { ...(tables.reputation.get(key)?.counters ?? zeroReputationCounters()) };
          addInto(counters, entry.counters);
          const { accountId, subAccountId, hour, domainId, provider, ipId } = entry;
          tables.reputation.set(key, { key, accountId, subAccountId, hour, domainId, provider, ipId, counters });
        }
      }),

    total: (scope, fromHour, toHour) =>
      ctx.read((tables) => {
        const counters = zeroReputationCounters();
        for (const row of rowsBetween(tables, fromHour, toHour))
          if (inScope(row, scope)) addInto(counters, row.counters);
        return counters;
      }),

    totalsBySubAccount: (fromHour, toHour, minProcessed) =>
      ctx.read((tables) => {
        const sums = new Map<string, { accountId: number; subAccountId: number; counters: ReputationCounters }>();
        for (const row of rowsBetween(tables, fromHour, toHour)) {
          const key = `${row.accountId}:${row.subAccountId}`;
          const sum = sums.get(key) ?? {
            accountId: row.accountId,
            subAccountId: row.subAccountId,
            counters: zeroReputationCounters(),
          };
          addInto(sum.counters, row.counters);
          sums.set(key, sum);
        }
        return [...sums.values()]
          .filter((sum) => sum.counters.processed >= minProcessed)
          .sort((a, b) => a.accountId - b.accountId || a.subAccountId - b.subAccountId);
      }),

    deleteBefore: (beforeHour, limit) =>
      ctx.write((tables) => {
        const old = [...tables.reputation.values()].filter((row) => row.hour < beforeHour).slice(0, Math.max(0, limit));
        for (const row of old) tables.reputation.delete(row.key);
        return old.length;
      }),
  };
}
