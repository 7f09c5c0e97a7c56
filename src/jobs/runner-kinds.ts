/**
 * The lanes and kinds of a job runner, built from its options with the defaults filled in. A lane is
 * a bulkhead: its kinds share its slots and no other kind takes them. A kind with a concurrency
 * limit of its own also runs through a queue of that size, inside its lane. A lane may keep some of
 * its slots for transactional jobs (`JobRunnerOptions.transactionalSlots`): the other jobs never
 * hold more than the rest, so a transactional job finds a slot without waiting for one to end.
 */
import PQueue from 'p-queue';
import type { JobRecord } from '../store/index.js';
import { toBackoffFunction, type BackoffFunction } from './backoff.js';
import type { JobGiveUp, JobHandler, JobRunnerOptions } from './types.js';

/** The lane of the kinds that name none: the runner's `concurrency` slots. */
export const DEFAULT_LANE = 'default';

/** Slots of their own for the kinds that run in it: a bulkhead between groups of kinds. */
export interface Lane {
  name: string;
  slots: number;
  pool: PQueue;
  /** Jobs of its kinds this runner holds (claimed and not yet settled or handed back). */
  held: number;
  /** Of its slots, how many only transactional jobs may take (less than `slots`). */
  reserved: number;
  /** Of `held`, the transactional jobs. */
  heldTransactional: number;
  /**
   * Whether transactional jobs may be due that it has not claimed: its last look found the lane
   * full, or found nothing but transactional jobs. A freed slot is then claimed at once.
   */
  transactionalMayWait: boolean;
  /** Its kinds with a concurrency limit of their own (claimed one by one) and the rest (claimed together). */
  limited: Kind[];
  shared: Kind[];
}

/** A kind's settings with defaults filled in. */
export interface Kind {
  name: string;
  lane: Lane;
  handler: JobHandler;
  giveUp: JobGiveUp | undefined;
  maxAttempts: number;
  backoff: BackoffFunction;
  /** Its own concurrency limit, or undefined when only the runner's applies. */
  limit: number | undefined;
  queue: PQueue | undefined;
  /** Jobs of this kind this runner holds. */
  held: number;
}

/** The lanes and kinds `options` describe. */
export function runnerKinds(options: JobRunnerOptions): { lanes: Map<string, Lane>; kinds: Map<string, Kind> } {
  const concurrency = Math.max(1, options.concurrency ?? 10);
  const lanes = new Map<string, Lane>();
  const laneFor = (name: string): Lane => {
    let lane = lanes.get(name);
    if (!lane) {
      const slots = Math.max(1, options.lanes?.[name] ?? concurrency);
      const reserved = Math.min(slots - 1, Math.max(0, Math.floor(options.transactionalSlots?.[name] ?? 0)));
      lane = {
        name,
        slots,
        pool: new PQueue({ concurrency: slots }),
        held: 0,
        reserved,
        heldTransactional: 0,
        transactionalMayWait: false,
        limited: [],
        shared: [],
      };
      lanes.set(name, lane);
    }
    return lane;
  };
  const kinds = new Map<string, Kind>();
  for (const [name, entry] of Object.entries(options.handlers)) {
    const settings = typeof entry === 'function' ? { handler: entry } : entry;
    const limit = settings.concurrency === undefined ? undefined : Math.max(1, settings.concurrency);
    const lane = laneFor(settings.lane ?? DEFAULT_LANE);
    const kind: Kind = {
      name,
      lane,
      handler: settings.handler,
      giveUp: settings.giveUp,
      maxAttempts: Math.max(1, settings.maxAttempts ?? options.maxAttempts ?? 10),
      backoff: toBackoffFunction(settings.backoff ?? options.backoff, options.random),
      limit,
      queue: limit === undefined ? undefined : new PQueue({ concurrency: limit }),
      held: 0,
    };
    kinds.set(name, kind);
    (limit === undefined ? lane.shared : lane.limited).push(kind);
  }
  return { lanes, kinds };
}

/** Whether `job` may take a slot a lane keeps for transactional jobs. */
export function isTransactional(job: Pick<JobRecord, 'stream'>): boolean {
  return job.stream === 'transactional';
}

/** How many more jobs that are not transactional `lane` takes: its slots but the reserved ones. */
export function roomForOthers(lane: Lane): number {
  return Math.max(
    0,
    Math.min(lane.slots - lane.held, lane.slots - lane.reserved - (lane.held - lane.heldTransactional)),
  );
}

/**
 * How many jobs to claim for `lane` with `room` free: room for the jobs that are not transactional,
 * and one look into the slots it keeps for transactional ones. The claim serves transactional jobs
 * first, so a job that is not transactional in that last place means none is due.
 */
export function claimLimit(lane: Lane, room: number): number {
  return Math.max(0, Math.min(room, roomForOthers(lane) + 1));
}

/**
 * Of `claimed` (in claim order: transactional first; `limit` asked for), the jobs `lane` takes:
 * every transactional one, and the others while {@link roomForOthers} lasts; the rest are to be
 * handed back. Notes whether transactional jobs may still be waiting: nothing could be claimed (the
 * lane is full), or the claim was full of transactional jobs.
 */
export function admit(
  lane: Lane,
  claimed: readonly JobRecord[],
  limit: number,
): { take: JobRecord[]; handBack: JobRecord[] } {
  let others = roomForOthers(lane);
  const take: JobRecord[] = [];
  const handBack: JobRecord[] = [];
  for (const job of claimed) {
    if (isTransactional(job)) take.push(job);
    else if (others > 0) {
      others--;
      take.push(job);
    } else handBack.push(job);
  }
  const last = claimed.at(-1);
  const fullOfTransactional = claimed.length === limit && last !== undefined && isTransactional(last);
  lane.transactionalMayWait = lane.reserved > 0 && (limit === 0 || fullOfTransactional);
  return { take, handBack };
}
