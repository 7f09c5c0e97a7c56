import type { MailplaneContext } from '../context.js';
import type { EnqueueResult, JsonObject, MailplaneStore } from '../store/index.js';

/** A job to enqueue through {@link JobQueue}. */
export interface EnqueueJob {
  kind: string;
  payload: JsonObject;
  /** Epoch milliseconds when it becomes due; default now (plus `delayMs`). */
  runAt?: number;
  /** Due this long after now; ignored when `runAt` is given. */
  delayMs?: number;
  /** See `NewJob.dedupeKey`: at most one pending or running job per kind and key. */
  dedupeKey?: string | null;
}

/** Options of {@link JobQueue.enqueue}. */
export interface EnqueueOptions {
  /**
   * The store to write through, e.g. the one `MailplaneStore.transaction` hands out, so the jobs
   * commit (or roll back) with the rest of the work. Listeners are then not notified: call
   * `notify()` once the transaction has committed.
   */
  store?: MailplaneStore;
}

/**
 * Enqueues jobs and tells in-process runners about them, so they start at once instead of at their
 * next poll. Runners in other processes find the jobs at their next poll.
 */
export interface JobQueue {
  enqueue(jobs: readonly EnqueueJob[], options?: EnqueueOptions): Promise<EnqueueResult[]>;
  /** Wakes every subscribed runner (after a transaction that enqueued jobs has committed). */
  notify(): void;
  /** Calls `listener` whenever jobs were enqueued; answers the function that unsubscribes. */
  subscribe(listener: () => void): () => void;
}

/**
 * The {@link JobQueue} of a context.
 *
 * @example
 * const queue = createJobQueue(ctx);
 * const runner = createJobRunner(ctx, { queue, handlers: { webhook: deliverWebhook } });
 * runner.start();
 * await queue.enqueue([{ kind: 'webhook', payload: { webhookId: 3, eventId: 'e1' }, dedupeKey: 'e1' }]);
 */
export function createJobQueue(ctx: Pick<MailplaneContext, 'store' | 'clock' | 'logger'>): JobQueue {
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        ctx.logger.error('job queue listener failed', { error: error instanceof Error ? error.message : String(error) });
      }
    }
  };
  return {
    async enqueue(jobs, options = {}) {
      const now = ctx.clock.now();
      const results = await (options.store ?? ctx.store).jobs.enqueue(
        jobs.map((job) => ({
          kind: job.kind,
          payload: job.payload,
          runAt: job.runAt ?? now + (job.delayMs ?? 0),
          dedupeKey: job.dedupeKey ?? null,
        })),
      );
      if (options.store === undefined && results.some((r) => r.created)) notify();
      return results;
    },
    notify,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
