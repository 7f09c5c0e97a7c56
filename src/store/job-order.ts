/**
 * The claim order of the job queue (docs/shaping.md, "Fair queues and priority"), shared by every
 * store so they serve jobs in the same order: a class first, then a fair order within the class.
 *
 * The fair order is a virtual clock (start-time fair queueing on epoch milliseconds): a job of a
 * key with no other job waiting is placed at its `runAt`; each further job of the same key and
 * class is placed {@link FAIR_SHARE_MS} after that key's last one. A key with a backlog of 2,000
 * jobs thus spreads them over the time ahead, and another key's new job lands between them instead
 * of after all of them. The order never goes below `runAt`, so a job that is not due yet is never
 * ahead of the due ones the claim's index scan walks past.
 */
import type { JobStream } from './job-store.js';

/** The rank of each class in the claim order (lower first); neutral jobs sit between the two. */
const PRIORITY = { transactional: 0, neutral: 1, bulk: 2 } as const;

/**
 * How much later each further job of a key with jobs waiting is placed: a share of one job per ten
 * seconds of virtual time. Larger than a page's delivery time, so that a busy key's order stays
 * ahead of the clock and a newcomer, placed at its `runAt`, goes before the key's backlog.
 */
export const FAIR_SHARE_MS = 10_000;

/**
 * How far after its own `runAt` a job can be placed: a backlog beyond an hour of shares queues in
 * `runAt` order at the end, so the index range a claim walks past stays within the hour ahead.
 */
export const FAIR_LEAD_MS = 3_600_000;

/** The stored rank of a job's class. */
export function jobPriority(stream: JobStream | null | undefined): number {
  return stream ? PRIORITY[stream] : PRIORITY.neutral;
}

/** The class of a stored rank (`null`: neutral). */
export function jobStreamOf(priority: number): JobStream | null {
  if (priority === PRIORITY.transactional) return 'transactional';
  if (priority === PRIORITY.bulk) return 'bulk';
  return null;
}

/**
 * Where a new job goes in its class's fair order: at `runAt` when its key has no job waiting
 * (`lastOfKey` null, or a keyless job), else one share after the key's last job, at most
 * `FAIR_LEAD_MS` after `runAt`.
 */
export function fairOrder(runAt: number, lastOfKey: number | null): number {
  if (lastOfKey === null) return runAt;
  return Math.max(runAt, Math.min(lastOfKey + FAIR_SHARE_MS, runAt + FAIR_LEAD_MS));
}

/**
 * The fair order of a job handed back due at `runAt` (a retry, a release): a keyless job follows
 * its `runAt`; a keyed one keeps its place unless that is before `runAt`, so it is never ahead of
 * due jobs while it is not due itself.
 */
export function fairOrderAfterRetry(current: number, runAt: number, fairKey: string | null): number {
  return fairKey === null ? runAt : Math.max(current, runAt);
}

/**
 * Assigns the fair order of each job of one enqueue, in input order: `lastOf(key, priority)` gives
 * the fair order of the key's latest waiting job in the store (or null), and jobs of the same key in
 * this batch follow one another.
 */
export function fairOrders(
  jobs: readonly { runAt: number; stream?: JobStream | null; fairKey?: string | null }[],
  lastOf: (fairKey: string, priority: number) => number | null,
): number[] {
  const latest = new Map<string, number | null>();
  return jobs.map((job) => {
    const runAt = Math.floor(job.runAt);
    if (!job.fairKey) return runAt;
    const priority = jobPriority(job.stream);
    const flow = fairFlow(job.fairKey, priority);
    const last = latest.has(flow) ? latest.get(flow)! : lastOf(job.fairKey, priority);
    const order = fairOrder(runAt, last);
    latest.set(flow, order);
    return order;
  });
}

/** The key of a key's share within a class, for the store's lookups of {@link fairOrders}. */
export function fairFlow(fairKey: string, priority: number): string {
  return JSON.stringify([fairKey, priority]);
}
