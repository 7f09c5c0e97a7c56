import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { subscribeToWakeUps } from '../cluster/wake-ups.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../model/time.js';
import type { JobRecord, MailplaneStore } from '../store/index.js';
import { givingUp, pendingGiveUp } from './give-up.js';
import { admit, claimLimit, isTransactional, runnerKinds, type Kind, type Lane } from './runner-kinds.js';
import { WakeableSleep } from './runner-sleep.js';
import { abandoned, describeJobError, verdictOf, type Verdict } from './runner-verdict.js';
import type { JobContext, JobHelpers, JobRunnerOptions, JobRunnerStatus } from './types.js';

/** A job this runner holds a lease on, from claim until settled or handed back. */
interface Held {
  job: JobRecord;
  kind: Kind;
  phase: 'waiting' | 'running' | 'settling' | 'released';
  controller: AbortController;
  done: Promise<void>;
  /** The handler completed the job in a transaction of its own ({@link JobHelpers.completeIn}). */
  completedInTransaction?: boolean;
}

/** Reads the phase afresh (TypeScript would keep the value narrowed across an await). */
const wasReleased = (entry: Held) => entry.phase === 'released';

/**
 * A worker that claims due jobs from the store and runs their handlers: in each lane at most its
 * slots at once (p-queue; `concurrency` for the kinds that name no lane, `lanes` for the others),
 * leases renewed while they run, failures retried with exponential backoff and jitter until
 * `maxAttempts`, then handed to the kind's `giveUp` before it is made dead (kept instead while that
 * fails), all times from the context's clock. Delivery is at least once: handlers must be
 * idempotent. See docs/jobs.md.
 *
 * @example
 * const runner = new JobRunner(ctx, {
 *   queue,
 *   handlers: { 'dns-check': { handler: checkDomain, concurrency: 2, maxAttempts: 5 } },
 * });
 * runner.start();
 * process.on('SIGTERM', () => void runner.stop());
 */
export class JobRunner {
  /** Unique id of this runner: the leases it takes are held under it. */
  readonly workerId: string;
  readonly #store: MailplaneStore;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #options: JobRunnerOptions;
  readonly #pollIntervalMs: number;
  readonly #leaseMs: number;
  readonly #lanes: Map<string, Lane>;
  readonly #kinds: Map<string, Kind>;
  readonly #held = new Map<number, Held>();
  readonly #sleep = new WakeableSleep();
  #started = false;
  #stopping = false;
  #loopDone: Promise<void> = Promise.resolve();
  #unsubscribe: (() => void) | undefined;
  /** Monotonic time (not the clock, which tests move by hand) the last claim round ended. */
  #lastRoundAt: number | null = null;

  constructor(ctx: JobContext, options: JobRunnerOptions) {
    this.#store = ctx.store;
    this.#clock = ctx.clock;
    this.#logger = ctx.logger;
    this.#options = options;
    this.#pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.#leaseMs = options.leaseMs ?? 60_000;
    this.workerId = options.workerId ?? `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
    ({ lanes: this.#lanes, kinds: this.#kinds } = runnerKinds(options));
  }

  /** Starts polling; does nothing if already started. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#stopping = false;
    // This process's enqueues and other processes' (PostgreSQL: LISTEN/NOTIFY); the poll stays as the fallback.
    this.#unsubscribe = subscribeToWakeUps({ local: this.#options.queue, store: this.#store }, this.notify);
    this.#loopDone = this.#loop();
  }

  /**
   * Stops claiming, hands back jobs claimed but not started, waits up to `graceMs` (default the
   * `shutdownGraceMs` option) for running handlers, then aborts the rest and hands their jobs back
   * without counting the attempt. Resolves when this runner holds no lease.
   */
  async stop(stopOptions: { graceMs?: number } = {}): Promise<void> {
    if (!this.#started) return;
    this.#stopping = true;
    this.#unsubscribe?.();
    this.notify();
    await this.#loopDone;
    await Promise.all(this.#heldIn('waiting').map((entry) => this.#handBack(entry)));
    await this.#graceForRunning(stopOptions.graceMs ?? this.#options.shutdownGraceMs ?? 10_000);
    await Promise.all(this.#heldIn('running').map((entry) => this.#handBack(entry)));
    // Outcomes being written are waited for: they are single statements.
    await Promise.all([...this.#held.values()].map((entry) => entry.done));
    this.#started = false;
  }

  /** Looks for due jobs now instead of at the next poll (e.g. after enqueueing, or after moving a manual clock). */
  readonly notify = (): void => this.#sleep.wake();

  /** Whether it polls, and how long ago its last claim round ended (for readiness checks). */
  status(): JobRunnerStatus {
    return {
      polling: this.#started && !this.#stopping,
      sinceLastRoundMs: this.#lastRoundAt === null ? null : performance.now() - this.#lastRoundAt,
      pollIntervalMs: this.#pollIntervalMs,
    };
  }

  async #loop(): Promise<void> {
    while (!this.#stopping) {
      // With a synchronous driver (better-sqlite3) claiming and settling never leave the microtask
      // queue; yielding here keeps a backlog from starving the HTTP server and timers.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.#stopping) break;
      this.#sleep.consume();
      let more = false;
      try {
        more = await this.#claimRound();
      } catch (error) {
        this.#logger.error('job claim failed', { error: describeJobError(error) });
      }
      this.#lastRoundAt = performance.now();
      if (!more) await this.#sleep.sleep(this.#pollIntervalMs, this.#stopping);
    }
  }

  /**
   * Claims for every lane with room: one claim per kind with a limit of its own (it may have room
   * when the others have none), one for the rest of the lane. Answers whether more may be due.
   */
  async #claimRound(): Promise<boolean> {
    let more = false;
    for (const lane of this.#lanes.values()) {
      let laneMore = false;
      for (const kind of lane.limited) {
        const room = Math.min(kind.limit! - kind.held, lane.slots - lane.held);
        laneMore = (await this.#claimFor(lane, [kind], room)) || laneMore;
      }
      laneMore = (await this.#claimFor(lane, lane.shared, lane.slots - lane.held)) || laneMore;
      more ||= laneMore && lane.held < lane.slots;
    }
    return more;
  }

  /**
   * Claims for one group of kinds of `lane`; answers whether it got all it asked for (more may be
   * due). Jobs beyond what the lane lets them take (its transactional slots) are handed back.
   */
  async #claimFor(lane: Lane, group: Kind[], room: number): Promise<boolean> {
    if (group.length === 0) return false;
    const limit = claimLimit(lane, room);
    const kinds = group.map((kind) => kind.name);
    const { workerId } = this;
    const claimed =
      limit > 0
        ? await this.#store.jobs.claim({ workerId, kinds, limit, now: this.#clock.now(), leaseMs: this.#leaseMs })
        : [];
    const { take, handBack } = admit(lane, claimed, limit);
    for (const job of take) this.#dispatch(job);
    await Promise.all(handBack.map((job) => this.#release(job)));
    return limit > 0 && claimed.length === limit && handBack.length === 0;
  }

  /** Hands back a job claimed but not taken, without counting the attempt. */
  async #release(job: JobRecord): Promise<void> {
    try {
      await this.#store.jobs.release(job.id, this.workerId);
    } catch (error) {
      // The lease expires on its own; the job is claimed again then.
      this.#logger.warn('job release failed', { jobId: job.id, error: describeJobError(error) });
    }
  }

  #dispatch(job: JobRecord): void {
    // Its own job again: the lease ran out while the handler still runs (renewals failed) and
    // this claim renewed it. The running handler carries on; a second copy here would race it.
    if (this.#held.has(job.id)) return;
    const kind = this.#kinds.get(job.kind)!;
    const entry: Held = { job, kind, phase: 'waiting', controller: new AbortController(), done: Promise.resolve() };
    this.#held.set(job.id, entry);
    kind.held++;
    kind.lane.held++;
    if (isTransactional(job)) kind.lane.heldTransactional++;
    const run = () => kind.lane.pool.add(() => this.#execute(entry));
    entry.done = (kind.queue ? kind.queue.add(run) : run()).catch((error: unknown) => {
      this.#logger.error('job runner failed', { jobId: job.id, kind: job.kind, error: describeJobError(error) });
    });
  }

  async #execute(entry: Held): Promise<void> {
    if (entry.phase !== 'waiting') return;
    entry.phase = 'running';
    try {
      let verdict = await this.#attempt(entry);
      if (wasReleased(entry)) return; // stop() gave the job back while the handler ran
      // The job is gone already: its completion committed with the handler's own writes.
      if (verdict.type === 'complete' && entry.completedInTransaction) return;
      entry.phase = 'settling';
      if (verdict.type === 'dead') verdict = await this.#giveUp(entry, verdict.error);
      if (!(await this.#settle(entry.job, verdict))) {
        this.#logger.warn('job lease was lost before the outcome was recorded', {
          jobId: entry.job.id,
          kind: entry.job.kind,
        });
      }
    } finally {
      this.#forget(entry);
    }
  }

  /** Runs the job's handler, unless the job was given up on before or has used up its claims. */
  async #attempt(entry: Held): Promise<Verdict> {
    const { job, kind } = entry;
    const givenUp = pendingGiveUp(job);
    // Given up on before, but its give-up could not be recorded: give up again, never rerun it.
    if (givenUp !== null) return { type: 'dead', error: givenUp };
    if (job.attempts > kind.maxAttempts) return abandoned(job);
    const helpers = this.#helpersFor(entry);
    const heartbeat = setInterval(
      () => {
        helpers.extendLease().catch((error: unknown) => {
          this.#logger.warn('job lease renewal failed', { jobId: job.id, error: describeJobError(error) });
        });
      },
      Math.max(1, Math.floor(this.#leaseMs / 3)),
    );
    try {
      await kind.handler(job, helpers);
      return { type: 'complete' };
    } catch (error) {
      return verdictOf(error, job, kind, this.#clock.now());
    } finally {
      clearInterval(heartbeat);
    }
  }

  #helpersFor(entry: Held): JobHelpers {
    return {
      signal: entry.controller.signal,
      workerId: this.workerId,
      extendLease: async (ms = this.#leaseMs) => {
        const ok = await this.#store.jobs.extendLease(entry.job.id, this.workerId, this.#clock.now() + ms);
        if (!ok) entry.controller.abort(new Error('the lease of this job was lost'));
        return ok;
      },
      completeIn: async (tx) => {
        if (!(await tx.jobs.complete(entry.job.id, this.workerId))) {
          const lost = new Error('the lease of this job was lost');
          entry.controller.abort(lost);
          throw lost;
        }
        entry.completedInTransaction = true;
      },
    };
  }

  /**
   * Hands a job about to die to its kind's `giveUp`; if that fails, the job is kept (nothing it
   * held may be left without an outcome because the store was down at that moment).
   */
  async #giveUp({ job, kind }: Held, reason: string): Promise<Verdict> {
    if (!kind.giveUp) return { type: 'dead', error: reason };
    try {
      await kind.giveUp(job, reason);
      return { type: 'dead', error: reason };
    } catch (error) {
      const runAt = this.#clock.now() + kind.backoff(job.attempts);
      return { type: 'give-up-later', runAt, reason, error: describeJobError(error) };
    }
  }

  async #settle(job: JobRecord, verdict: Verdict): Promise<boolean> {
    const { jobs } = this.#store;
    const fields = { jobId: job.id, kind: job.kind, attempt: job.attempts };
    switch (verdict.type) {
      case 'complete':
        return jobs.complete(job.id, this.workerId);
      case 'defer':
        return jobs.release(job.id, this.workerId, verdict.runAt);
      case 'retry':
        this.#logger.warn('job attempt failed; will retry', {
          ...fields,
          retryAt: verdict.runAt,
          error: verdict.error,
        });
        return jobs.fail(job.id, this.workerId, { error: verdict.error, retryAt: verdict.runAt });
      case 'dead':
        this.#logger.error('job failed permanently', { ...fields, error: verdict.error });
        return jobs.fail(job.id, this.workerId, { error: verdict.error, retryAt: null });
      case 'give-up-later':
        this.#logger.error('job could not give up; kept to give up again', {
          ...fields,
          retryAt: verdict.runAt,
          reason: verdict.reason,
          error: verdict.error,
        });
        return jobs.fail(job.id, this.workerId, { error: givingUp(verdict.reason), retryAt: verdict.runAt });
    }
  }

  #forget(entry: Held): void {
    if (this.#held.get(entry.job.id) !== entry) return;
    this.#held.delete(entry.job.id);
    const { kind } = entry;
    const { lane } = kind;
    kind.held--;
    lane.held--;
    if (isTransactional(entry.job)) lane.heldTransactional--;
    // Claim again once half the room is free: fills up in batches rather than one job per query.
    // But a transactional job that may be waiting takes the freed slot at once.
    const kindLow = kind.limit !== undefined && kind.held <= Math.floor(kind.limit / 2);
    const laneLow = lane.held <= Math.floor(lane.slots / 2);
    if (!this.#stopping && (laneLow || kindLow || lane.transactionalMayWait)) this.notify();
  }

  async #handBack(entry: Held): Promise<void> {
    entry.phase = 'released';
    entry.controller.abort(new Error('the job runner is stopping'));
    await this.#release(entry.job);
    this.#forget(entry);
  }

  #heldIn(phase: Held['phase']): Held[] {
    return [...this.#held.values()].filter((entry) => entry.phase === phase);
  }

  /** Waits for the running handlers to end, at most `graceMs`. */
  async #graceForRunning(graceMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([...this.#held.values()].map((entry) => entry.done)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
    ]);
    clearTimeout(timer);
  }
}

/** A new {@link JobRunner}: see there. */
export function createJobRunner(ctx: JobContext, options: JobRunnerOptions): JobRunner {
  return new JobRunner(ctx, options);
}
