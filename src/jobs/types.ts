import type { Logger } from '../logging/logger.js';
import type { Clock } from '../model/time.js';
import type { JobRecord, JsonObject, MailplaneStore } from '../store/index.js';
import type { BackoffFunction, BackoffOptions } from './backoff.js';

/** What the job queue and runner use of the instance. */
export interface JobContext {
  readonly store: MailplaneStore;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** What a runner listens to for jobs enqueued in this process (a `JobQueue`). */
export interface JobWakeups {
  /** Calls `listener` whenever jobs were enqueued; answers the function that unsubscribes. */
  subscribe(listener: () => void): () => void;
}

/** What a handler gets besides the job. */
export interface JobHelpers {
  /**
   * Aborted when the runner lost the lease (another worker may now run the job) or when a
   * graceful stop ran out of time; a long handler should stop early and leave no partial effect.
   */
  readonly signal: AbortSignal;
  /** The runner's worker id, under which the lease is held. */
  readonly workerId: string;
  /**
   * Extends the lease to `ms` (default the runner's `leaseMs`) from now. The runner already
   * extends it periodically; call this before a step known to take longer. False: lease lost.
   */
  extendLease(ms?: number): Promise<boolean>;
  /**
   * Completes the job inside the transaction whose store is `tx`, so that what the handler wrote
   * there and the job's completion commit together or not at all. A handler that enqueues its own
   * continuation calls it in that transaction: once the continuation is committed, the job cannot
   * run again (a worker dying before the runner recorded the completion would otherwise leave it to
   * be claimed again and enqueue a second, different continuation). Throws when the lease was lost,
   * which rolls the transaction back. The handler should resolve once the transaction committed.
   */
  completeIn(tx: Pick<MailplaneStore, 'jobs'>): Promise<void>;
}

/**
 * Runs one job. It may run more than once for the same job (at-least-once delivery: a worker can
 * die after the work and before recording it), so it MUST be idempotent. Resolving completes the
 * job; throwing fails the attempt (see `RetryJobError` and `PermanentJobError`).
 */
export type JobHandler<P extends object = JsonObject> = (
  job: Omit<JobRecord, 'payload'> & { payload: P },
  helpers: JobHelpers,
) => Promise<void>;

/** A handler with settings of its own kind. */
export interface JobKindOptions {
  handler: JobHandler;
  /** At most this many jobs of this kind at once in this runner (within its lane's slots). */
  concurrency?: number;
  /**
   * The lane whose slots the kind's jobs run in (a name of `JobRunnerOptions.lanes`); without one,
   * the runner's `concurrency` slots. Lanes are bulkheads: jobs of one lane that wait on a slow
   * peer (an SMTP server, a webhook receiver) cannot take the slots of another.
   */
  lane?: string;
  /** Overrides the runner's `maxAttempts` for this kind. */
  maxAttempts?: number;
  /** Overrides the runner's `backoff` for this kind. */
  backoff?: BackoffOptions | BackoffFunction;
  /**
   * Settles what a job of this kind leaves undone when the runner gives up on it (its attempts
   * used up, a `PermanentJobError`, an abandoned job), before the job is made dead: a kind that
   * carries messages ends each one it still holds in a visible failed state, so none waits for a
   * job that will never run again. `reason` is the job's last error in plain words.
   *
   * If it throws (the store is down), the job is not made dead: it is kept pending, due after the
   * kind's backoff, and at its next claim the runner gives up again without running the handler,
   * until this succeeds. It must therefore be idempotent, like handlers.
   */
  giveUp?: JobGiveUp;
}

/** See {@link JobKindOptions.giveUp}. */
export type JobGiveUp = (job: JobRecord, reason: string) => Promise<void>;

/** Options of {@link createJobRunner}. */
export interface JobRunnerOptions {
  /** The handler of each job kind; only these kinds are claimed. */
  handlers: Record<string, JobHandler | JobKindOptions>;
  /** Jobs run at once by this runner in the kinds that name no lane (default 10). */
  concurrency?: number;
  /** Slots of each lane the kinds name (`JobKindOptions.lane`); a lane not listed here gets `concurrency`. */
  lanes?: Record<string, number>;
  /**
   * Of each lane's slots, how many only transactional jobs (`JobRecord.stream`) may take (default
   * none; at most the lane's slots minus one). While transactional jobs may be waiting, a freed slot
   * of the lane is claimed at once rather than when half the lane is free. See docs/jobs.md, "Lanes".
   */
  transactionalSlots?: Record<string, number>;
  /** How often to look for due jobs when nothing woke the runner (default 1,000 ms). */
  pollIntervalMs?: number;
  /**
   * How long a claimed job stays leased (default 60,000 ms). Renewed every third of it while the
   * handler runs; if this process dies, the job is claimed again this long after the last renewal.
   */
  leaseMs?: number;
  /** Attempts before a failing job becomes dead (default 10; see `JobKindOptions.giveUp`). */
  maxAttempts?: number;
  /** Retry delays after a failed attempt (default: exponential from 1 s, doubling, at most 1 h, 20 % jitter). */
  backoff?: BackoffOptions | BackoffFunction;
  /** How long `stop()` waits for running handlers before it hands their jobs back (default 10,000 ms). */
  shutdownGraceMs?: number;
  /** Unique id of this runner (default `hostname/pid/random`). Two runners must never share one. */
  workerId?: string;
  /** Wake up whenever this queue enqueues jobs, instead of at the next poll. */
  queue?: JobWakeups;
  /** The jitter source (default `Math.random`). */
  random?: () => number;
}

/** What `JobRunner.status()` reports. */
export interface JobRunnerStatus {
  /** Started and not stopping. */
  polling: boolean;
  /** Milliseconds since the last claim round ended (monotonic time), or null before the first. */
  sinceLastRoundMs: number | null;
  /** The poll interval it runs with. */
  pollIntervalMs: number;
}
