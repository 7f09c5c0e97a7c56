/**
 * The lanes and kinds of a job runner, built from its options with the defaults filled in. A lane is
 * a bulkhead: its kinds share its slots and no other kind takes them. A kind with a concurrency
 * limit of its own also runs through a queue of that size, inside its lane.
 */
import PQueue from 'p-queue';
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
      lane = { name, slots, pool: new PQueue({ concurrency: slots }), held: 0, limited: [], shared: [] };
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
