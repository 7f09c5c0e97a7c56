import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import PQueue from 'p-queue';
import { subscribeToWakeUps } from '../cluster/wake-ups.js';
import type { JobRecord } from '../store/index.js';
import { toBackoffFunction, type BackoffFunction } from './backoff.js';
import { PermanentJobError, RetryJobError } from './errors.js';
import { givingUp, MAX_ERROR_LENGTH, pendingGiveUp } from './give-up.js';
import type { JobContext, JobGiveUp, JobHandler, JobHelpers, JobRunner, JobRunnerOptions } from './types.js';

/** Slots of their own for the kinds that run in it: a bulkhead between groups of kinds. */
interface Lane {
  name: string;
  slots: number;
  pool: PQueue;
  held: number;
  /** Its kinds with a concurrency limit of their own (claimed one by one) and the rest (claimed together). */
  limited: Kind[];
  shared: Kind[];
}

/** A kind's settings with defaults filled in. */
interface Kind {
  name: string;
  lane: Lane;
  handler: JobHandler;
  giveUp: JobGiveUp | undefined;
  maxAttempts: number;
  backoff: BackoffFunction;
  /** Its own concurrency limit, or undefined when only the runner's applies. */
  limit: number | undefined;
  queue: PQueue | undefined;
  held: number;
}

/** A job this runner holds a lease on, from claim until settled or handed back. */
interface Held {
  job: JobRecord;
  kind: Kind;
  phase: 'waiting' | 'running' | 'settling' | 'released';
  controller: AbortController;
  done: Promise<void>;
}

/** What becomes of an attempt. */
type Verdict =
  | { type: 'complete' }
  | { type: 'retry'; runAt: number; error: string }
  | { type: 'defer'; runAt: number }
  | { type: 'dead'; error: string }
  /** The kind's `giveUp` failed: the job is kept, to give up again at `runAt`. */
  | { type: 'give-up-later'; runAt: number; reason: string; error: string };

/** The lane of the kinds that name none: the runner's `concurrency` slots. */
const DEFAULT_LANE = 'default';

/** Reads the phase afresh (TypeScript would keep the value narrowed across an await). */
const wasReleased = (entry: Held) => entry.phase === 'released';

const describe = (error: unknown) =>
  (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, MAX_ERROR_LENGTH);

/**
 * A worker that claims due jobs from `ctx.store.jobs` and runs their handlers: in each lane at
 * most its slots at once (p-queue; `concurrency` for the kinds that name no lane, `lanes` for the
 * others), leases renewed while they run, failures retried with
 * exponential backoff and jitter until `maxAttempts`, then handed to the kind's `giveUp` before
 * it is made dead (kept instead while that fails), all times from `ctx.clock`. Delivery is at
 * least once: handlers must be idempotent. See docs/jobs.md.
 *
 * @example
 * const runner = createJobRunner(ctx, {
 *   queue,
 *   handlers: { 'dns-check': { handler: checkDomain, concurrency: 2, maxAttempts: 5 } },
 * });
 * runner.start();
 * process.on('SIGTERM', () => void runner.stop());
 */
export function createJobRunner(ctx: JobContext, options: JobRunnerOptions): JobRunner {
  const { store, clock, logger } = ctx;
  const concurrency = Math.max(1, options.concurrency ?? 10);
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const leaseMs = options.leaseMs ?? 60_000;
  const shutdownGraceMs = options.shutdownGraceMs ?? 10_000;
  const workerId = options.workerId ?? `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  const lanes = new Map<string, Lane>();
  const laneFor = (name: string): Lane => {
    let lane = lanes.get(name);
    if (!lane) {
      const slots = Math.max(1, options.lanes?.[name] ?? concurrency);
      lanes.set(
        name,
        (lane = { name, slots, pool: new PQueue({ concurrency: slots }), held: 0, limited: [], shared: [] }),
      );
    }
    return lane;
  };

  const kinds = new Map<string, Kind>();
  for (const [name, entry] of Object.entries(options.handlers)) {
    const settings = typeof entry === 'function' ? { handler: entry } : entry;
    const limit = settings.concurrency === undefined ? undefined : Math.max(1, settings.concurrency);
    const lane = laneFor(settings.lane ?? DEFAULT_LANE);
    kinds.set(name, {
      name,
      lane,
      handler: settings.handler,
      giveUp: settings.giveUp,
      maxAttempts: Math.max(1, settings.maxAttempts ?? options.maxAttempts ?? 10),
      backoff: toBackoffFunction(settings.backoff ?? options.backoff, options.random),
      limit,
      queue: limit === undefined ? undefined : new PQueue({ concurrency: limit }),
      held: 0,
    });
    (limit === undefined ? lane.shared : lane.limited).push(kinds.get(name)!);
  }

  const held = new Map<number, Held>();
  let started = false;
  let stopping = false;
  let loopDone: Promise<void> = Promise.resolve();
  let unsubscribe: (() => void) | undefined;
  /** Monotonic time (not ctx.clock, which tests move by hand) the last claim round ended. */
  let lastRoundAt: number | null = null;

  // Wake-up: a notify() during a claim round must not be lost, so it is remembered until the next sleep.
  let wakePending = false;
  let wakeSleeper: (() => void) | undefined;
  const wake = () => {
    wakePending = true;
    wakeSleeper?.();
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (wakePending || stopping) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeSleeper = undefined;
        resolve();
      }
      wakeSleeper = done;
    });

  /** Claims for one group of kinds; answers whether it got all it asked for (more may be due). */
  async function claimFor(group: Kind[], room: number): Promise<boolean> {
    if (room <= 0 || group.length === 0) return false;
    const jobs = await store.jobs.claim({
      workerId,
      kinds: group.map((k) => k.name),
      limit: room,
      now: clock.now(),
      leaseMs,
    });
    for (const job of jobs) dispatch(job);
    return jobs.length === room;
  }

  /**
   * Claims for every lane with room: one claim per kind with a limit of its own (it may have room
   * when the others have none), one for the rest of the lane. Answers whether more may be due.
   */
  async function claimRound(): Promise<boolean> {
    let more = false;
    for (const lane of lanes.values()) {
      let laneMore = false;
      for (const kind of lane.limited) {
        laneMore = (await claimFor([kind], Math.min(kind.limit! - kind.held, lane.slots - lane.held))) || laneMore;
      }
      laneMore = (await claimFor(lane.shared, lane.slots - lane.held)) || laneMore;
      more ||= laneMore && lane.held < lane.slots;
    }
    return more;
  }

  function dispatch(job: JobRecord) {
    // Its own job again: the lease ran out while the handler still runs (renewals failed) and
    // this claim renewed it. The running handler carries on; a second copy here would race it.
    if (held.has(job.id)) return;
    const kind = kinds.get(job.kind)!;
    const entry: Held = { job, kind, phase: 'waiting', controller: new AbortController(), done: Promise.resolve() };
    held.set(job.id, entry);
    kind.held++;
    kind.lane.held++;
    const run = () => kind.lane.pool.add(() => execute(entry));
    entry.done = (kind.queue ? kind.queue.add(run) : run()).catch((error: unknown) => {
      logger.error('job runner failed', { jobId: job.id, kind: job.kind, error: describe(error) });
    });
  }

  function helpersFor(entry: Held): JobHelpers {
    return {
      signal: entry.controller.signal,
      workerId,
      extendLease: async (ms = leaseMs) => {
        const ok = await store.jobs.extendLease(entry.job.id, workerId, clock.now() + ms);
        if (!ok) entry.controller.abort(new Error('the lease of this job was lost'));
        return ok;
      },
    };
  }

  function verdictOf(error: unknown, job: JobRecord, kind: Kind): Verdict {
    if (error instanceof PermanentJobError) return { type: 'dead', error: describe(error) };
    if (error instanceof RetryJobError && !error.countAttempt) return { type: 'defer', runAt: error.runAt };
    if (job.attempts >= kind.maxAttempts) {
      return { type: 'dead', error: `${describe(error)} (gave up after ${job.attempts} attempts)` };
    }
    if (error instanceof RetryJobError) return { type: 'retry', runAt: error.runAt, error: describe(error) };
    return { type: 'retry', runAt: clock.now() + kind.backoff(job.attempts), error: describe(error) };
  }

  async function settle(job: JobRecord, verdict: Verdict): Promise<boolean> {
    const fields = { jobId: job.id, kind: job.kind, attempt: job.attempts };
    switch (verdict.type) {
      case 'complete':
        return store.jobs.complete(job.id, workerId);
      case 'defer':
        return store.jobs.release(job.id, workerId, verdict.runAt);
      case 'retry':
        logger.warn('job attempt failed; will retry', { ...fields, retryAt: verdict.runAt, error: verdict.error });
        return store.jobs.fail(job.id, workerId, { error: verdict.error, retryAt: verdict.runAt });
      case 'dead':
        logger.error('job failed permanently', { ...fields, error: verdict.error });
        return store.jobs.fail(job.id, workerId, { error: verdict.error, retryAt: null });
      case 'give-up-later':
        logger.error('job could not give up; kept to give up again', {
          ...fields,
          retryAt: verdict.runAt,
          reason: verdict.reason,
          error: verdict.error,
        });
        return store.jobs.fail(job.id, workerId, { error: givingUp(verdict.reason), retryAt: verdict.runAt });
    }
  }

  /**
   * Hands a job about to die to its kind's `giveUp`; if that fails, the job is kept (nothing it
   * held may be left without an outcome because the store was down at that moment).
   */
  async function giveUp(job: JobRecord, kind: Kind, reason: string): Promise<Verdict> {
    if (!kind.giveUp) return { type: 'dead', error: reason };
    try {
      await kind.giveUp(job, reason);
      return { type: 'dead', error: reason };
    } catch (error) {
      return { type: 'give-up-later', runAt: clock.now() + kind.backoff(job.attempts), reason, error: describe(error) };
    }
  }

  async function execute(entry: Held): Promise<void> {
    if (entry.phase !== 'waiting') return;
    entry.phase = 'running';
    const { job, kind } = entry;
    try {
      let verdict: Verdict;
      const givenUp = pendingGiveUp(job);
      if (givenUp !== null) {
        // Given up on before, but its give-up could not be recorded: give up again, never rerun it.
        verdict = { type: 'dead', error: givenUp };
      } else if (job.attempts > kind.maxAttempts) {
        // Claims count attempts, so a job whose handler keeps killing its process (or outlasting
        // its lease) ends here instead of being retried forever.
        const last = job.lastError === null ? '' : ` (last error: ${job.lastError})`;
        verdict = {
          type: 'dead',
          error: `abandoned: ${job.attempts - 1} attempts ended without an outcome${last}`.slice(0, MAX_ERROR_LENGTH),
        };
      } else {
        const helpers = helpersFor(entry);
        const heartbeat = setInterval(
          () => {
            helpers.extendLease().catch((error: unknown) => {
              logger.warn('job lease renewal failed', { jobId: job.id, error: describe(error) });
            });
          },
          Math.max(1, Math.floor(leaseMs / 3)),
        );
        try {
          await kind.handler(job, helpers);
          verdict = { type: 'complete' };
        } catch (error) {
          verdict = verdictOf(error, job, kind);
        } finally {
          clearInterval(heartbeat);
        }
      }
      if (wasReleased(entry)) return; // stop() gave the job back while the handler ran
      entry.phase = 'settling';
      if (verdict.type === 'dead') verdict = await giveUp(job, kind, verdict.error);
      if (!(await settle(job, verdict))) {
        logger.warn('job lease was lost before the outcome was recorded', { jobId: job.id, kind: job.kind });
      }
    } finally {
      forget(entry);
    }
  }

  function forget(entry: Held) {
    if (held.get(entry.job.id) !== entry) return;
    held.delete(entry.job.id);
    const { kind } = entry;
    kind.held--;
    kind.lane.held--;
    // Claim again once half the room is free: fills up in batches rather than one job per query.
    const kindLow = kind.limit !== undefined && kind.held <= Math.floor(kind.limit / 2);
    if (!stopping && (kind.lane.held <= Math.floor(kind.lane.slots / 2) || kindLow)) wake();
  }

  async function handBack(entry: Held) {
    entry.phase = 'released';
    entry.controller.abort(new Error('the job runner is stopping'));
    try {
      await store.jobs.release(entry.job.id, workerId);
    } catch (error) {
      // The lease expires on its own; the job is claimed again then.
      logger.warn('job release failed', { jobId: entry.job.id, error: describe(error) });
    }
    forget(entry);
  }

  async function loop() {
    while (!stopping) {
      // With a synchronous driver (better-sqlite3) claiming and settling never leave the microtask
      // queue; yielding here keeps a backlog from starving the HTTP server and timers.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (stopping) break;
      wakePending = false;
      let more = false;
      try {
        more = await claimRound();
      } catch (error) {
        logger.error('job claim failed', { error: describe(error) });
      }
      lastRoundAt = performance.now();
      if (!more) await sleep(pollIntervalMs);
    }
  }

  return {
    workerId,
    start() {
      if (started) return;
      started = true;
      stopping = false;
      // This process's enqueues and other processes' (PostgreSQL: LISTEN/NOTIFY); the poll stays as the fallback.
      unsubscribe = subscribeToWakeUps({ local: options.queue, store }, wake);
      loopDone = loop();
    },
    async stop(stopOptions = {}) {
      if (!started) return;
      stopping = true;
      unsubscribe?.();
      wake();
      await loopDone;
      await Promise.all([...held.values()].filter((e) => e.phase === 'waiting').map(handBack));
      const graceMs = stopOptions.graceMs ?? shutdownGraceMs;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all([...held.values()].map((e) => e.done)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
      ]);
      clearTimeout(timer);
      await Promise.all([...held.values()].filter((e) => e.phase === 'running').map(handBack));
      // Outcomes being written are waited for: they are single statements.
      await Promise.all([...held.values()].map((e) => e.done));
      started = false;
    },
    notify: wake,
    status: () => ({
      polling: started && !stopping,
      sinceLastRoundMs: lastRoundAt === null ? null : performance.now() - lastRoundAt,
      pollIntervalMs,
    }),
  };
}
