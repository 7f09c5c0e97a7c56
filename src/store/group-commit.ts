import { createBatcher } from './batcher.js';
import type {
  EventRecord,
  MailplaneStore,
  ReputationIncrement,
  StatsIncrement,
  WarmupTrafficIncrement,
} from './index.js';

/** A write that must be committed before its caller answers. */
export type StoreWrite = (store: MailplaneStore) => Promise<void>;

/** Commits writes, several per transaction when they arrive together. */
export interface GroupCommit {
  /** Resolves once `write` is committed; rejects if it (alone) failed. */
  commit(write: StoreWrite): Promise<void>;
}

interface Pending {
  write: StoreWrite;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * A view of transaction `tx` in which the appends that only add up (events, counter increments,
 * reputation counters, warmup traffic) are gathered, to be written by `flush` in one statement each: a multi-row insert
 * and merged increments instead of one statement per write. Nothing a write does reads them back
 * within the transaction, so they can wait for its end; a failing flush fails the group like any
 * failing write.
 */
function gatheringAppends(tx: MailplaneStore): { store: MailplaneStore; flush: () => Promise<void> } {
  const events: EventRecord[] = [];
  const increments: StatsIncrement[] = [];
  const reputation: ReputationIncrement[] = [];
  const traffic: WarmupTrafficIncrement[] = [];
  const override = <T extends object>(target: T, name: keyof T, gather: (entries: never[]) => void): T =>
    Object.create(target, { [name]: { value: async (entries: never[]) => gather(entries) } }) as T;
  const store = Object.create(tx, {
    messages: { value: override(tx.messages, 'addEvents', (entries: EventRecord[]) => events.push(...entries)) },
    stats: { value: override(tx.stats, 'increment', (entries: StatsIncrement[]) => increments.push(...entries)) },
    reputation: {
      value: override(tx.reputation, 'increment', (entries: ReputationIncrement[]) => reputation.push(...entries)),
    },
    warmup: {
      value: override(tx.warmup, 'addTraffic', (entries: WarmupTrafficIncrement[]) => traffic.push(...entries)),
    },
  }) as MailplaneStore;
  const flush = async () => {
    if (events.length > 0) await tx.messages.addEvents(events);
    if (increments.length > 0) await tx.stats.increment(increments);
    if (reputation.length > 0) await tx.reputation.increment(reputation);
    if (traffic.length > 0) await tx.warmup.addTraffic(traffic);
  };
  return { store, flush };
}

/** Runs `writes` in transaction `tx`, with their appends gathered into one statement each. */
async function runGathered(tx: MailplaneStore, writes: readonly StoreWrite[]): Promise<void> {
  const { store, flush } = gatheringAppends(tx);
  for (const write of writes) await write(store);
  await flush();
}

/**
 * Group commit: the writes that arrive in the same turn of the event loop, or while a transaction
 * is being committed, are committed together in one transaction (src/store/batcher.ts says why a
 * turn). No write waits for more than the transaction ahead of it, and the fixed cost of a commit
 * (the pages every accept touches: batches, messages, events, counters, jobs) is shared. If a
 * group fails, each of its writes is retried in a transaction of its own, so only a faulty write
 * fails.
 *
 * With `lingerMs`, a write that finds nothing being committed waits up to that long for others
 * (or until `maxGroup` are waiting) before its transaction starts. Writes that arrive one by one
 * faster than a transaction takes (delivery outcomes: each comes with its server's reply) would
 * otherwise each commit alone, and a commit costs more than the few rows it writes.
 *
 * @param maxGroup most writes in one transaction (bounds the transaction's size and latency)
 * @param lingerMs how long a lone write waits for company (0: to the end of the event loop's turn)
 */
export function createGroupCommit(store: MailplaneStore, maxGroup = 64, lingerMs = 0): GroupCommit {
  const runAlone = async (item: Pending) => {
    try {
      await store.transaction((tx) => runGathered(tx, [item.write]));
      item.resolve();
    } catch (error) {
      item.reject(error);
    }
  };
  const runGroup = async (group: Pending[]) => {
    if (group.length === 1) return runAlone(group[0]!);
    try {
      await store.transaction((tx) =>
        runGathered(
          tx,
          group.map((item) => item.write),
        ),
      );
      for (const item of group) item.resolve();
    } catch {
      for (const item of group) await runAlone(item);
    }
  };
  const batcher = createBatcher(runGroup, { maxBatch: maxGroup, lingerMs });
  return {
    commit: (write) => new Promise<void>((resolve, reject) => batcher.add({ write, resolve, reject })),
  };
}
