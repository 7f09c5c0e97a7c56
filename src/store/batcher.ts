/**
 * Gathers work that arrives together so it can be done in one go: the group commit's writes
 * (src/store/group-commit.ts) and the rate limiter's hits (src/rate-limits/limiter.ts).
 *
 * Why a turn of the event loop: with SQLite every statement runs synchronously, so while one
 * batch is being done no request can arrive, and a batcher that starts at once would always find
 * itself alone. Waiting for `setImmediate` lets every request the loop has read in the same turn
 * (a poll phase hands over all sockets that have data) join the batch, for microseconds of
 * latency. On PostgreSQL the items that arrive while a batch is in flight still form the next one.
 */

/** Options of {@link createBatcher}. */
export interface BatcherOptions {
  /** Most items handed to one run. */
  maxBatch: number;
  /**
   * How long a lone item waits for company before its run starts (0: until the end of the current
   * turn of the event loop only). For work that arrives one by one, slower than a run takes.
   */
  lingerMs?: number;
}

/** Collects items and hands them to `run` in batches; see {@link createBatcher}. */
export interface Batcher<T> {
  /** Queues `item`; it is handed to a run of at most `maxBatch` items, in arrival order. */
  add(item: T): void;
}

/**
 * A {@link Batcher} that calls `run` with the items queued since the last run, one run at a time;
 * items queued while a run is in flight go to the next. `run` must settle every item it is given
 * (items carry their own resolve and reject) and should not throw; if it does, the items of that
 * run are lost to the batcher, which goes on with the next.
 */
export function createBatcher<T>(
  run: (batch: T[]) => Promise<void>,
  { maxBatch, lingerMs = 0 }: BatcherOptions,
): Batcher<T> {
  const queue: T[] = [];
  let scheduled: NodeJS.Timeout | NodeJS.Immediate | null = null;
  let running = false;

  const drain = async () => {
    scheduled = null;
    running = true;
    try {
      while (queue.length > 0) await run(queue.splice(0, maxBatch)).catch(() => undefined);
    } finally {
      running = false;
    }
  };
  const start = () => {
    if (scheduled) {
      if (lingerMs > 0) clearTimeout(scheduled as NodeJS.Timeout);
      else clearImmediate(scheduled as NodeJS.Immediate);
    }
    scheduled = null;
    // A run in flight takes what is queued when it ends: one drain at a time.
    if (!running) void drain();
  };

  return {
    add(item) {
      queue.push(item);
      if (running) return;
      if (queue.length >= maxBatch) start();
      else scheduled ??= lingerMs > 0 ? setTimeout(start, lingerMs) : setImmediate(start);
    },
  };
}
