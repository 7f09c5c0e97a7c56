/** A JSON value, as a job payload holds it (no bigint, no undefined, no Date: serialise those first). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A job payload: a JSON object, stored as JSON text. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * Where a job stands. Completed jobs are deleted, so there is no `completed` state: the table
 * holds only outstanding work and the dead letters.
 *
 * - `pending`: waiting for its `runAt`;
 * - `running`: leased by `lockedBy` until `leaseUntil` (an expired lease is claimable again);
 * - `dead`: failed permanently; kept with `lastError` until pruned.
 */
export type JobState = 'pending' | 'running' | 'dead';

/** A job as stored. Times are epoch milliseconds from the caller's clock. */
export interface JobRecord {
  id: number;
  /** What to do; selects the handler, e.g. `delivery`, `dns-check`, `webhook`. */
  kind: string;
  payload: JsonObject;
  state: JobState;
  /** When the current (or next) attempt is due. */
  runAt: number;
  /** When the lease of a `running` job ends; `null` otherwise. */
  leaseUntil: number | null;
  /** The worker holding the lease of a `running` job; `null` otherwise. */
  lockedBy: string | null;
  /** Attempts started: `claim` adds one, `release` takes it back. */
  attempts: number;
  dedupeKey: string | null;
  /** The error of the latest failed attempt, or `null`. */
  lastError: string | null;
  /** Its priority class (`NewJob.stream`), or `null`: a neutral job (not mail). */
  stream: JobStream | null;
  /** Whose share of its class it is served from (`NewJob.fairKey`), or `null`. */
  fairKey: string | null;
}

/**
 * The priority class of a delivery job: `transactional` jobs are claimed before every other job,
 * `bulk` ones after every other job. Jobs without one (webhooks, DNS checks, warmup, …) are
 * neutral, between the two.
 */
export type JobStream = 'transactional' | 'bulk';

/** What {@link JobStore.enqueue} stores. */
export interface NewJob {
  kind: string;
  /** Must survive `JSON.stringify`/`JSON.parse` unchanged. */
  payload: JsonObject;
  /** Epoch milliseconds when the job becomes due. */
  runAt: number;
  /**
   * While a job of the same `kind` with this key is pending or running, another one is not
   * enqueued (it is answered with `created: false` and the existing job's id). Dead and completed
   * jobs do not block the key.
   */
  dedupeKey?: string | null;
  /** Its priority class; neutral when absent (see {@link JobStream}). */
  stream?: JobStream | null;
  /**
   * Whose share of its class it is served from, e.g. the sending sub-account: within a class,
   * `claim` interleaves the jobs of different keys (docs/shaping.md, "Fair queues and priority").
   * Keyless jobs are served in `runAt` order.
   */
  fairKey?: string | null;
}

/** The answer of {@link JobStore.enqueue} for one input job, in input order. */
export interface EnqueueResult {
  /** False when an active job with the same kind and dedupe key already existed. */
  created: boolean;
  /** The new job's id, or the existing one's; `null` if that one finished in the meantime. */
  id: number | null;
}

/** What {@link JobStore.claim} asks for. */
export interface ClaimOptions {
  /** Unique per runner instance; the lease is held under it. */
  workerId: string;
  /** Only these kinds; all kinds when omitted (an empty array claims nothing). */
  kinds?: readonly string[];
  /** At most this many jobs. */
  limit: number;
  /** The caller's clock, epoch milliseconds. */
  now: number;
  /** The lease lasts until `now + leaseMs`. */
  leaseMs: number;
}

/** What {@link JobStore.fail} records. */
export interface JobFailure {
  /** Why the attempt failed; kept on the job. */
  error: string;
  /** When to try again, or `null`: the job is dead (kept with its error, never claimed again). */
  retryAt: number | null;
}

/**
 * The durable job queue. Jobs are leased, not locked for the length of a transaction: a worker
 * that dies loses its lease when it expires and the job is claimed again, so every handler runs
 * **at least once** and must be idempotent.
 *
 * - `enqueue` MUST be atomic for the whole batch and MUST NOT create a second pending/running job
 *   with the same `kind` and `dedupeKey`, also under concurrent calls. Called on a transaction's
 *   store, the jobs appear only when it commits.
 * - `claim` MUST lease each job to exactly one worker, also under concurrent calls from several
 *   processes; it returns pending jobs whose `runAt <= now` and running jobs whose lease has expired,
 *   at most `limit`, sets state `running`, `lockedBy`, `leaseUntil` and adds one to `attempts`.
 *   Order: `transactional` jobs, then neutral ones, then `bulk` ones; within a class by the fair
 *   order `fairOrder` gives at enqueue (for keyless jobs: oldest `runAt` first), then enqueue order.
 *   So a key's long backlog takes turns with another key's newer jobs instead of going first.
 * - `complete`, `fail`, `extendLease` and `release` MUST act only while the job is running and
 *   leased by `workerId` (an expired lease not yet claimed by another worker still counts), and
 *   answer whether they did. A stale worker can thus never settle a job re-leased to another.
 * - `complete` deletes the job (its dedupe key becomes free).
 * - `fail` with a `retryAt` makes the job pending again at that time; with `null` it becomes dead.
 * - `release` hands the job back without counting the attempt, due at `runAt` if given, else at
 *   its previous `runAt` (usually at once).
 * - `claim` MUST stay an index range scan with 1,000,000 pending jobs (`countByState` is for
 *   tests and operators and may scan).
 */
export interface JobStore {
  enqueue(jobs: readonly NewJob[]): Promise<EnqueueResult[]>;
  claim(options: ClaimOptions): Promise<JobRecord[]>;
  complete(id: number, workerId: string): Promise<boolean>;
  fail(id: number, workerId: string, failure: JobFailure): Promise<boolean>;
  /** Moves the lease end to `until` (epoch milliseconds). */
  extendLease(id: number, workerId: string, until: number): Promise<boolean>;
  release(id: number, workerId: string, runAt?: number): Promise<boolean>;
  get(id: number): Promise<JobRecord | null>;
  /** Number of jobs in each state, optionally of one kind only. */
  countByState(kind?: string): Promise<Record<JobState, number>>;
  /** Deletes dead jobs whose last attempt was due before `before`; answers how many. */
  pruneDead(before: number): Promise<number>;
  /**
   * For each kind with pending jobs: how many are pending (due or not) and the `runAt` of the
   * oldest one due at `now` (null when none is due yet). For metrics scrapes; may scan the pending jobs.
   */
  queueStats(now: number): Promise<JobQueueStats[]>;
}

/** One kind's line of {@link JobStore.queueStats}. */
export interface JobQueueStats {
  kind: string;
  pending: number;
  /** `runAt` (epoch ms) of the oldest pending job that is due, or null. */
  oldestDueAt: number | null;
}
