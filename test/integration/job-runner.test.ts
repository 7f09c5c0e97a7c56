import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { manualClock, silentLogger, type JobRecord, type Logger, type MailplaneStore } from 'mailplane';
import {
  createJobQueue,
  createJobRunner,
  exponentialBackoff,
  PermanentJobError,
  RetryJobError,
  type JobHandler,
  type JobQueue,
  type JobRunner,
  type JobRunnerOptions,
} from '../../src/jobs/index.js';
import { openTestStore, storeKinds } from '../support/databases.js';
import { withJobStoreOverrides } from '../support/store-overrides.js';

const T0 = Date.UTC(2026, 0, 1);
const until = (check: () => Promise<void> | void) => vi.waitFor(check, { timeout: 10_000, interval: 10 });

/** A promise the test resolves when it chooses. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('exponential backoff', () => {
  it('doubles from the base up to the cap, and jitter only shortens a delay by at most its fraction', () => {
    const none = exponentialBackoff({ baseMs: 1_000, maxMs: 10_000, jitter: 0.5 }, () => 0);
    expect([1, 2, 3, 4, 5, 30].map(none)).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
    const most = exponentialBackoff({ baseMs: 1_000, maxMs: 10_000, jitter: 0.5 }, () => 0.999_999);
    expect([1, 2, 5].map(most)).toEqual([500, 1_000, 5_000]);
    expect(exponentialBackoff()(1)).toBeGreaterThanOrEqual(800);
    expect(exponentialBackoff()(1)).toBeLessThanOrEqual(1_000);
  });
});

describe.each(storeKinds)('job runner on %s', (kind) => {
  let store: MailplaneStore;
  let close: () => Promise<void>;
  let clock: ReturnType<typeof manualClock>;
  let queue: JobQueue;
  let logged: { level: string; message: string; fields?: Record<string, unknown> }[];
  let runners: JobRunner[];
  let ctx: Parameters<typeof createJobRunner>[0];

  beforeEach(async () => {
    ({ store, close } = await openTestStore(kind));
    clock = manualClock(T0);
    logged = [];
    const logger: Logger = {
      info: (message, fields) => logged.push({ level: 'info', message, fields }),
      warn: (message, fields) => logged.push({ level: 'warn', message, fields }),
      error: (message, fields) => logged.push({ level: 'error', message, fields }),
    };
    queue = createJobQueue({ store, clock, logger: silentLogger });
    runners = [];
    ctx = { store, clock, logger };
  });
  afterEach(async () => {
    for (const runner of runners) await runner.stop({ graceMs: 0 });
    await close();
  });

  // A long poll interval: jobs must start because the queue woke the runner, not because it polled.
  const start = (options: Omit<JobRunnerOptions, 'queue'>) => {
    const runner = createJobRunner(ctx, { queue, pollIntervalMs: 60_000, backoff: { jitter: 0 }, ...options });
    runners.push(runner);
    runner.start();
    return runner;
  };
  const enqueue = async (jobKind: string, payload: Record<string, number | string> = {}) => {
    const [result] = await queue.enqueue([{ kind: jobKind, payload }]);
    return result!.id!;
  };
  const counts = (jobKind?: string) => store.jobs.countByState(jobKind);
  /** Lets the lease of job `id` expire and has another worker claim it. */
  const leaseTakenByOther = async (id: number, leaseMs: number) => {
    clock.advance(leaseMs);
    const [stolen] = await store.jobs.claim({ workerId: 'other', now: clock.now(), limit: 1, leaseMs });
    expect(stolen?.id).toBe(id);
  };

  it('runs enqueued jobs with their payload and deletes them when done', async () => {
    const seen: unknown[] = [];
    start({ handlers: { greet: async (job) => void seen.push(job.payload) } });
    const id = await enqueue('greet', { to: 'ada' });
    await until(async () => expect(await store.jobs.get(id)).toBeNull());
    expect(seen).toEqual([{ to: 'ada' }]);
    expect(await counts()).toEqual({ pending: 0, running: 0, dead: 0 });
  });

  it('retries a failing job on the backoff schedule of the clock, then completes it', async () => {
    const attempts: number[] = [];
    const runner = start({
      handlers: {
        flaky: async (job) => {
          attempts.push(job.attempts);
          if (job.attempts < 3) throw new Error(`receiver down (${job.attempts})`);
        },
      },
      backoff: { baseMs: 60_000, factor: 2, jitter: 0 },
    });
    const id = await enqueue('flaky');
    await until(async () => expect(await store.jobs.get(id)).toMatchObject({ state: 'pending', attempts: 1 }));
    expect(await store.jobs.get(id)).toMatchObject({ runAt: T0 + 60_000, lastError: 'Error: receiver down (1)' });
    clock.advance(60_000);
    runner.notify();
    await until(async () => expect(await store.jobs.get(id)).toMatchObject({ state: 'pending', attempts: 2 }));
    expect((await store.jobs.get(id))?.runAt).toBe(T0 + 60_000 + 120_000);
    clock.advance(120_000);
    runner.notify();
    await until(async () => expect(await store.jobs.get(id)).toBeNull());
    expect(attempts).toEqual([1, 2, 3]);
    expect(logged.filter((l) => l.level === 'warn').map((l) => l.fields?.attempt)).toEqual([1, 2]);
  });

  it('makes a job dead after maxAttempts, keeping the last error', async () => {
    const runner = start({
      handlers: { doomed: { handler: () => Promise.reject(new Error('boom')), maxAttempts: 2 } },
    });
    const id = await enqueue('doomed');
    await until(async () => expect(await store.jobs.get(id)).toMatchObject({ attempts: 1, state: 'pending' }));
    clock.advance(3_600_000);
    runner.notify();
    await until(async () => expect(await store.jobs.get(id)).toMatchObject({ attempts: 2, state: 'dead' }));
    expect((await store.jobs.get(id))?.lastError).toBe('Error: boom (gave up after 2 attempts)');
    expect(logged.some((l) => l.level === 'error' && l.message === 'job failed permanently')).toBe(true);
  });

  it('obeys PermanentJobError and RetryJobError thrown by handlers', async () => {
    start({
      handlers: {
        permanent: () => Promise.reject(new PermanentJobError('550 no such user')),
        later: () => Promise.reject(new RetryJobError('greylisted', { runAt: T0 + 300_000 })),
        deferred: () =>
          Promise.reject(new RetryJobError('warm-up cap reached', { runAt: T0 + 86_400_000, countAttempt: false })),
      },
    });
    const permanent = await enqueue('permanent');
    const later = await enqueue('later');
    const deferred = await enqueue('deferred');
    await until(async () => {
      expect(await store.jobs.get(permanent)).toMatchObject({
        state: 'dead',
        attempts: 1,
        lastError: 'PermanentJobError: 550 no such user',
      });
      expect(await store.jobs.get(later)).toMatchObject({
        state: 'pending',
        attempts: 1,
        runAt: T0 + 300_000,
        lastError: 'RetryJobError: greylisted',
      });
      expect(await store.jobs.get(deferred)).toMatchObject({
        state: 'pending',
        attempts: 0,
        runAt: T0 + 86_400_000,
        lastError: null,
      });
    });
  });

  it('never runs more jobs at once than its concurrency, nor more of a kind than its own limit', async () => {
    const release = gate();
    let running = 0;
    let most = 0;
    let mostSlow = 0;
    let slow = 0;
    const work =
      (isSlow: boolean): JobHandler =>
      async () => {
        running++;
        if (isSlow) slow++;
        most = Math.max(most, running);
        mostSlow = Math.max(mostSlow, slow);
        await release.opened;
        running--;
        if (isSlow) slow--;
      };
    await queue.enqueue([
      ...Array.from({ length: 4 }, () => ({ kind: 'slow', payload: {} })),
      ...Array.from({ length: 8 }, () => ({ kind: 'fast', payload: {} })),
    ]);
    start({ concurrency: 3, handlers: { fast: work(false), slow: { handler: work(true), concurrency: 1 } } });
    await until(() => expect(running).toBe(3));
    // Claims follow free room: what is not running stays pending for other workers.
    expect(await counts()).toEqual({ pending: 9, running: 3, dead: 0 });
    expect(await counts('slow')).toMatchObject({ running: 1 });
    release.open();
    await until(async () => expect(await counts()).toEqual({ pending: 0, running: 0, dead: 0 }));
    expect(most).toBe(3);
    expect(mostSlow).toBe(1);
  });

  it('runs each lane in slots of its own: a lane whose jobs all hang does not stop another', async () => {
    const hang = gate();
    let hanging = 0;
    const ran: string[] = [];
    await queue.enqueue(Array.from({ length: 6 }, () => ({ kind: 'stuck', payload: {} })));
    start({
      concurrency: 2,
      lanes: { slow: 4 },
      handlers: {
        stuck: {
          lane: 'slow',
          handler: async () => {
            hanging++;
            await hang.opened;
          },
        },
        quick: { lane: 'other', handler: async () => void ran.push('quick') },
        plain: async () => void ran.push('plain'),
      },
    });
    await until(() => expect(hanging).toBe(4));
    // Its lane is full; the lane named without slots of its own and the default lane still run.
    await enqueue('quick');
    await enqueue('plain');
    await until(() => expect(ran.sort()).toEqual(['plain', 'quick']));
    expect(await counts('stuck')).toMatchObject({ pending: 2, running: 4 });
    hang.open();
    await until(async () => expect(await counts()).toEqual({ pending: 0, running: 0, dead: 0 }));
  });
  it('lets running handlers finish when stopping within the grace period', async () => {
    const release = gate();
    const started = gate();
    const runner = start({ handlers: { job: async () => (started.open(), await release.opened) } });
    const id = await enqueue('job');
    await started.opened;
    const stopped = runner.stop({ graceMs: 10_000 });
    release.open();
    await stopped;
    expect(await store.jobs.get(id)).toBeNull();
  });

  it('hands running jobs back on stop after the grace period, aborting their handlers, without counting the attempt', async () => {
    const started = gate();
    // The handler ignores its abort; it ends with the test, so that nothing of it runs on after.
    const testEnded = gate();
    onTestFinished(() => testEnded.open());
    let signal: AbortSignal | undefined;
    const runner = start({
      handlers: {
        stuck: (_job, helpers) => {
          signal = helpers.signal;
          started.open();
          return testEnded.opened;
        },
      },
    });
    const id = await enqueue('stuck');
    await started.opened;
    expect(await store.jobs.get(id)).toMatchObject({ state: 'running', lockedBy: runner.workerId, attempts: 1 });
    await runner.stop({ graceMs: 20 });
    expect(signal?.aborted).toBe(true);
    expect(await store.jobs.get(id)).toMatchObject({ state: 'pending', lockedBy: null, attempts: 0, runAt: T0 });
    // Another runner picks it up at once.
    const done: number[] = [];
    start({ handlers: { stuck: async (job) => void done.push(job.id) } }).notify();
    await until(() => expect(done).toEqual([id]));
  });

  it('tells a handler that lost its lease, and does not let it settle the job', async () => {
    const release = gate();
    const started = gate();
    let extended: boolean | undefined;
    let aborted: boolean | undefined;
    // Enqueued before the start, so the runner's only claim is its first one: it must not
    // re-claim the expired lease itself before the other worker does.
    const id = await enqueue('long');
    start({
      leaseMs: 30_000,
      handlers: {
        long: async (_job, helpers) => {
          started.open();
          await release.opened;
          extended = await helpers.extendLease();
          aborted = helpers.signal.aborted;
        },
      },
    });
    await started.opened;
    await leaseTakenByOther(id, 30_000);
    release.open();
    await until(() => expect(aborted).toBe(true));
    expect(extended).toBe(false);
    await until(() =>
      expect(logged.some((l) => l.message === 'job lease was lost before the outcome was recorded')).toBe(true),
    );
    expect(await store.jobs.get(id)).toMatchObject({ state: 'running', lockedBy: 'other', attempts: 2 });
  });

  it('completeIn commits the job with the handler’s writes: a worker that dies before its own completion write does not run it again', async () => {
    // The runner's completion after the handler never reaches the store, as when the process dies
    // right after the handler's transaction committed.
    ctx = {
      ...ctx,
      store: withJobStoreOverrides(store, {
        complete: () => Promise.reject(new Error('the worker died before this write')),
      }),
    };
    let splits = 0;
    const runner = start({
      leaseMs: 1_000,
      handlers: {
        split: async (_job, helpers) => {
          splits++;
          await store.transaction(async (tx) => {
            await tx.jobs.enqueue([{ kind: 'next', payload: {}, runAt: clock.now() }]);
            await helpers.completeIn(tx);
          });
        },
      },
    });
    const id = await enqueue('split');
    await until(async () => expect(await store.jobs.get(id)).toBeNull());
    clock.advance(10_000); // ten leases: a job left running would be claimed again now
    runner.notify();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(splits).toBe(1);
    expect((await counts('next')).pending).toBe(1);
    expect(logged.filter((l) => l.level !== 'info')).toEqual([]);
  });

  it('completeIn after the lease was lost throws, and the handler’s transaction rolls back', async () => {
    const release = gate();
    const started = gate();
    let failure: unknown;
    let aborted: boolean | undefined;
    const id = await enqueue('split');
    start({
      leaseMs: 30_000,
      handlers: {
        split: async (_job, helpers) => {
          started.open();
          await release.opened;
          failure = await store
            .transaction(async (tx) => {
              await tx.jobs.enqueue([{ kind: 'next', payload: {}, runAt: clock.now() }]);
              await helpers.completeIn(tx);
            })
            .catch((error: unknown) => error);
          aborted = helpers.signal.aborted;
        },
      },
    });
    await started.opened;
    await leaseTakenByOther(id, 30_000);
    release.open();
    await until(() => expect(failure).toBeInstanceOf(Error));
    expect((failure as Error).message).toBe('the lease of this job was lost');
    expect(aborted).toBe(true);
    expect((await counts('next')).pending).toBe(0);
    expect(await store.jobs.get(id)).toMatchObject({ state: 'running', lockedBy: 'other' });
  });

  it('does not run a job twice when it re-claims its own expired lease', async () => {
    const release = gate();
    const started = gate();
    let calls = 0;
    const runner = start({
      leaseMs: 30_000,
      handlers: { own: async () => (calls++, started.open(), await release.opened) },
    });
    const id = await enqueue('own');
    await started.opened;
    clock.advance(30_000);
    runner.notify();
    await until(async () => expect(await store.jobs.get(id)).toMatchObject({ attempts: 2, lockedBy: runner.workerId }));
    release.open();
    await until(async () => expect(await store.jobs.get(id)).toBeNull());
    expect(calls).toBe(1);
  });

  it('marks dead a job whose earlier attempts all ended in expired leases', async () => {
    const id = await enqueue('crashy');
    // Two workers claimed it and died: their leases expired without an outcome.
    for (const worker of ['dead-1', 'dead-2']) {
      await store.jobs.claim({ workerId: worker, now: clock.now(), limit: 1, leaseMs: 1_000 });
      clock.advance(1_000);
    }
    let ran = false;
    start({ handlers: { crashy: { handler: async () => void (ran = true), maxAttempts: 2 } } }).notify();
    await until(async () => expect(await store.jobs.get(id)).toMatchObject({ state: 'dead', attempts: 3 }));
    expect(ran).toBe(false);
    expect(((await store.jobs.get(id)) as JobRecord).lastError).toMatch(/^abandoned: 2 attempts/);
  });

  it('starts jobs enqueued in a transaction once notified after the commit', async () => {
    const done: number[] = [];
    start({ handlers: { tx: async (job) => void done.push(job.id) } });
    const [result] = await store.transaction((tx) => queue.enqueue([{ kind: 'tx', payload: {} }], { store: tx }));
    queue.notify();
    await until(() => expect(done).toEqual([result!.id]));
  });
});
