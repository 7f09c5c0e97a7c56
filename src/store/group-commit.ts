import type { MailplaneStore } from './index.js';

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
 * Group commit: a write that arrives while a transaction is being committed waits for it and is
 * then committed together with every other write that arrived meanwhile, in one transaction. No
 * write waits for more than the transaction ahead of it, and the fixed cost of a commit (the pages
 * every accept touches: batches, messages, events, counters, jobs) is shared. If a group fails,
 * each of its writes is retried in a transaction of its own, so only a faulty write fails.
 *
 * @param maxGroup most writes in one transaction (bounds the transaction's size and latency)
 */
export function createGroupCommit(store: MailplaneStore, maxGroup = 64): GroupCommit {
  const queue: Pending[] = [];
  let flushing = false;

  const runAlone = async (item: Pending) => {
    try {
      await store.transaction((tx) => item.write(tx));
      item.resolve();
    } catch (error) {
      item.reject(error);
    }
  };

  const flush = async () => {
    flushing = true;
    try {
      while (queue.length > 0) {
        const group = queue.splice(0, maxGroup);
        if (group.length === 1) {
          await runAlone(group[0]!);
          continue;
        }
        try {
          await store.transaction(async (tx) => {
            for (const item of group) await item.write(tx);
          });
          for (const item of group) item.resolve();
        } catch {
          for (const item of group) await runAlone(item);
        }
      }
    } finally {
      flushing = false;
    }
  };

  return {
    commit(write) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ write, resolve, reject });
        if (!flushing) void flush();
      });
    },
  };
}
