import type { EnqueueResult, JobStream, JsonObject, MailplaneStore } from '../store/index.js';
import type { JobContext, JobWakeups } from './types.js';

/** The payload type of each job kind a queue takes (mailplane's own: `MailplaneJobs`, src/jobs/kinds.ts). */
export type JobPayloads = { [kind: string]: object };

/**
 * A job to enqueue through {@link JobQueue}: with a registry of kinds, `payload` must be the
 * payload of `kind` (checked at compile time).
 */
export type EnqueueJob<P extends JobPayloads = Record<string, JsonObject>> = {
  [K in keyof P & string]: {
    kind: K;
    payload: P[K];
    /** Epoch milliseconds when it becomes due; default now (plus `delayMs`). */
    runAt?: number;
    /** Due this long after now; ignored when `runAt` is given. */
    delayMs?: number;
    /** See `NewJob.dedupeKey`: at most one pending or running job per kind and key. */
    dedupeKey?: string | null;
    /** See `NewJob.stream`: its priority class (delivery jobs); neutral when absent. */
    stream?: JobStream | null;
    /** See `NewJob.fairKey`: whose share of the class it is served from (the sending sub-account). */
    fairKey?: string | null;
  };
}[keyof P & string];

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
 * next poll. Runners in other processes learn of them through the store (`onJobsDue`, when it has it).
 */
export interface JobQueue<P extends JobPayloads = Record<string, JsonObject>> extends JobWakeups {
  enqueue(jobs: readonly EnqueueJob<P>[], options?: EnqueueOptions): Promise<EnqueueResult[]>;
  /** Wakes every subscribed runner (after a transaction that enqueued jobs has committed). */
  notify(): void;
}

/**
 * Writes `jobs` through `store`, due from `nowMs`: what {@link JobQueue.enqueue} does, without
 * waking anyone. It is for code that holds no job queue (the webhook outbox, whose jobs wake the
 * runner through the store's `onJobsDue`); everything else enqueues through `ctx.jobs`.
 */
export function enqueueJobs<P extends JobPayloads = Record<string, JsonObject>>(
  store: MailplaneStore,
  nowMs: number,
  jobs: readonly EnqueueJob<P>[],
): Promise<EnqueueResult[]> {
  return store.jobs.enqueue(
    jobs.map((job) => ({
      kind: job.kind,
      // Payload types are JSON by construction (the kinds' schemas), not by declaration.
      payload: job.payload as JsonObject,
      runAt: job.runAt ?? nowMs + (job.delayMs ?? 0),
      dedupeKey: job.dedupeKey ?? null,
      stream: job.stream ?? null,
      fairKey: job.fairKey ?? null,
    })),
  );
}

/**
 * The {@link JobQueue} of a context. `P` names the payload of each kind; without it any kind
 * with any JSON payload is taken.
 *
 * @example
 * const queue = createJobQueue<{ webhook: { webhookId: number; eventId: string } }>(ctx);
 * const runner = createJobRunner(ctx, { queue, handlers: { webhook: deliverWebhook } });
 * runner.start();
 * await queue.enqueue([{ kind: 'webhook', payload: { webhookId: 3, eventId: 'e1' }, dedupeKey: 'e1' }]);
 */
export function createJobQueue<P extends JobPayloads = Record<string, JsonObject>>(ctx: JobContext): JobQueue<P> {
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        ctx.logger.error('job queue listener failed', {
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  };
  return {
    async enqueue(jobs, options = {}) {
      const results = await enqueueJobs(options.store ?? ctx.store, ctx.clock.now(), jobs);
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
