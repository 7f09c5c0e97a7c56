/**
 * The slots a lane keeps for transactional jobs (`JobRunnerOptions.transactionalSlots`, docs/jobs.md,
 * "Lanes"): other jobs never take them, a transactional job takes one while they hold the rest, and
 * a freed slot goes to a waiting transactional job at once, on each store.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { manualClock, silentLogger, type MailplaneStore } from 'mailplane';
import { createJobQueue, createJobRunner, type JobQueue, type JobRunner } from '../../src/jobs/index.js';
import { openTestStore, storeKinds } from '../support/databases.js';

const until = (check: () => Promise<void> | void) => vi.waitFor(check, { timeout: 10_000, interval: 10 });

/** The lane's slots, and of them the ones kept for transactional jobs. */
const SLOTS = 4;
const RESERVED = 1;

describe.each(storeKinds)('transactional slots of a lane (%s)', (kind) => {
  let store: MailplaneStore;
  let close: () => Promise<void>;
  let queue: JobQueue;
  let runner: JobRunner;
  /** The jobs running now, by their payload's name; each ends when the test calls its `finish`. */
  let running: Map<string, () => void>;
  let started: string[];

  beforeEach(async () => {
    ({ store, close } = await openTestStore(kind));
    const ctx = { store, clock: manualClock(Date.UTC(2026, 0, 1)), logger: silentLogger };
    queue = createJobQueue(ctx);
    running = new Map();
    started = [];
    runner = createJobRunner(ctx, {
      queue,
      // A poll far beyond the test: a job starts because an enqueue or a freed slot woke the runner.
      pollIntervalMs: 600_000,
      lanes: { delivery: SLOTS },
      transactionalSlots: { delivery: RESERVED },
      handlers: {
        deliver: {
          lane: 'delivery',
          handler: (job) =>
            new Promise<void>((resolve) => {
              const name = String(job.payload.name);
              started.push(name);
              running.set(name, () => {
                running.delete(name);
                resolve();
              });
            }),
        },
      },
    });
    runner.start();
  });
  afterEach(async () => {
    for (const finish of running.values()) finish();
    await runner.stop({ graceMs: 1_000 });
    await close();
  });

  const enqueue = (stream: 'bulk' | 'transactional', names: string[]) =>
    queue.enqueue(names.map((name) => ({ kind: 'deliver', payload: { name }, stream, fairKey: `tenant-${stream}` })));

  it('keeps its slot from bulk jobs and gives it to a transactional job while bulk holds the rest', async () => {
    await enqueue(
      'bulk',
      Array.from({ length: 10 }, (_, i) => `bulk-${i}`),
    );
    await until(() => expect(running.size).toBe(SLOTS - RESERVED));

    await enqueue('transactional', ['reset']);
    await until(() => expect(running.has('reset')).toBe(true));
    // The bulk jobs still hold their slots: the reset did not wait for one of them to end.
    expect([...running.keys()].filter((name) => name.startsWith('bulk-'))).toHaveLength(SLOTS - RESERVED);
    expect(await store.jobs.countByState('deliver')).toEqual({
      pending: 10 - (SLOTS - RESERVED),
      running: SLOTS,
      dead: 0,
    });
  });

  it('gives a freed slot to a waiting transactional job at once, not when half the lane is free', async () => {
    await enqueue('transactional', ['reset-1']);
    await until(() => expect(running.has('reset-1')).toBe(true));
    await enqueue(
      'bulk',
      Array.from({ length: 10 }, (_, i) => `bulk-${i}`),
    );
    await until(() => expect(running.size).toBe(SLOTS));
    // Every slot is taken: the second reset waits for one, after the claim round its enqueue woke.
    const enqueuedAt = performance.now();
    await enqueue('transactional', ['reset-2']);
    await until(() => expect(performance.now() - runner.status().sinceLastRoundMs!).toBeGreaterThan(enqueuedAt));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(running.has('reset-2')).toBe(false);

    // One bulk job ends: 3 of 4 slots stay held, and no poll comes; the freed slot goes to the reset.
    running.get('bulk-0')!();
    await until(() => expect(running.has('reset-2')).toBe(true));
    expect(started.filter((name) => name.startsWith('bulk-'))).toHaveLength(SLOTS - RESERVED);
  });
});
