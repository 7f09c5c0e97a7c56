import {
  fairFlow,
  fairOrderAfterRetry,
  fairOrders,
  jobPriority,
  jobStreamOf,
  type EnqueueResult,
  type JobQueueStats,
  type JobRecord,
  type JobState,
  type JobStore,
  type JsonObject,
} from '../../store/index.js';
import type { MemoryContext } from './common.js';
import type { JobRow } from './rows.js';
import type { TableRows } from './tables.js';

/** Times are whole milliseconds, as the Kysely store keeps them; a clock may answer fractions. */
const ms = (value: number) => Math.floor(value);

function toJob(row: JobRow): JobRecord {
  return {
    id: row.id,
    kind: row.kind,
    payload: JSON.parse(row.payload) as JsonObject,
    state: row.state,
    runAt: row.runAt,
    leaseUntil: row.state === 'running' ? row.availableAt : null,
    lockedBy: row.lockedBy,
    attempts: row.attempts,
    dedupeKey: row.dedupeKey,
    lastError: row.lastError,
    stream: jobStreamOf(row.priority),
    fairKey: row.fairKey,
  };
}

/** The claim order: class, fair order, then enqueue order (as the Kysely store's index). */
const byClaimOrder = (a: JobRow, b: JobRow) => a.priority - b.priority || a.fairAt - b.fairAt || a.id - b.id;

/** A handed-back job's row due at `runAt`: its fair order never stays before it. */
const dueAt = (row: JobRow, runAt: number): JobRow => ({
  ...row,
  runAt,
  availableAt: runAt,
  fairAt: fairOrderAfterRetry(row.fairAt, runAt, row.fairKey),
});

/** The running job `id` leased by `workerId` (an expired lease not yet claimed again still counts). */
function leased(tables: TableRows, id: number, workerId: string): JobRow | undefined {
  const row = tables.jobs.get(id);
  return row?.state === 'running' && row.lockedBy === workerId ? row : undefined;
}

/** {@link JobStore} of the in-memory store. */
export function memoryJobStore(ctx: MemoryContext): JobStore {
  /** Applies `change` to the job leased by `workerId`; answers whether there was one. */
  const settle = (id: number, workerId: string, change: (row: JobRow) => JobRow | null) =>
    ctx.write((tables) => {
      const row = leased(tables, id, workerId);
      if (!row) return false;
      const next = change(row);
      if (next) tables.jobs.set(id, next);
      else tables.jobs.delete(id);
      return true;
    });

  return {
    enqueue: (jobs) =>
      ctx.write((tables) => {
        // The active job of each (kind, dedupe key), including those this batch adds.
        const active = new Map<string, number>();
        // The fair order of each key's latest waiting job, per class.
        const latest = new Map<string, number>();
        for (const row of tables.jobs.values()) {
          if (row.activeDedupeKey !== null) active.set(JSON.stringify([row.kind, row.activeDedupeKey]), row.id);
          if (row.fairKey === null || row.availableAt === null) continue;
          const flow = fairFlow(row.fairKey, row.priority);
          latest.set(flow, Math.max(latest.get(flow) ?? row.fairAt, row.fairAt));
        }
        const orders = fairOrders(jobs, (key, priority) => latest.get(fairFlow(key, priority)) ?? null);
        return jobs.map((job, index): EnqueueResult => {
          const dedupeKey = job.dedupeKey ?? null;
          const slot = dedupeKey === null ? null : JSON.stringify([job.kind, dedupeKey]);
          const existing = slot === null ? undefined : active.get(slot);
          if (existing !== undefined) return { created: false, id: existing };
          const id = ctx.nextId('jobs');
          const runAt = ms(job.runAt);
          tables.jobs.set(id, {
            key: id,
            id,
            kind: job.kind,
            payload: JSON.stringify(job.payload),
            state: 'pending',
            runAt,
            availableAt: runAt,
            lockedBy: null,
            attempts: 0,
            dedupeKey,
            activeDedupeKey: dedupeKey,
            lastError: null,
            priority: jobPriority(job.stream),
            fairKey: job.fairKey ?? null,
            fairAt: orders[index]!,
          });
          if (slot !== null) active.set(slot, id);
          return { created: true, id };
        });
      }),

    claim: ({ workerId, kinds, limit, now, leaseMs }) =>
      ctx.write((tables) => {
        if (limit <= 0 || kinds?.length === 0) return [];
        const at = ms(now);
        const wanted = kinds ? new Set(kinds) : null;
        // Due pending jobs and expired leases, in the order of the Kysely store's index scan.
        const due = [...tables.jobs.values()]
          .filter(
            (row) => row.availableAt !== null && row.availableAt <= at && (wanted === null || wanted.has(row.kind)),
          )
          .sort(byClaimOrder)
          .slice(0, Math.floor(limit));
        const claimed = due.map((row): JobRow => ({
          ...row,
          state: 'running',
          lockedBy: workerId,
          availableAt: at + ms(leaseMs),
          attempts: row.attempts + 1,
        }));
        for (const row of claimed) tables.jobs.set(row.id, row);
        return claimed.map(toJob);
      }),

    complete: (id, workerId) => settle(id, workerId, () => null),

    fail: (id, workerId, { error, retryAt }) =>
      settle(id, workerId, (row) =>
        retryAt === null
          ? { ...row, state: 'dead', availableAt: null, activeDedupeKey: null, lockedBy: null, lastError: error }
          : { ...dueAt(row, ms(retryAt)), state: 'pending', lockedBy: null, lastError: error },
      ),

    extendLease: (id, workerId, until) => settle(id, workerId, (row) => ({ ...row, availableAt: ms(until) })),

    release: (id, workerId, runAt) =>
      settle(id, workerId, (row) => ({
        ...(runAt === undefined ? { ...row, availableAt: row.runAt } : dueAt(row, ms(runAt))),
        state: 'pending',
        lockedBy: null,
        attempts: Math.max(0, row.attempts - 1),
      })),

    get: (id) =>
      ctx.read((tables) => {
        const row = tables.jobs.get(id);
        return row ? toJob(row) : null;
      }),

    countByState: (kind) =>
      ctx.read((tables) => {
        const counts: Record<JobState, number> = { pending: 0, running: 0, dead: 0 };
        for (const row of tables.jobs.values()) if (kind === undefined || row.kind === kind) counts[row.state]++;
        return counts;
      }),

    queueStats: (now) =>
      ctx.read((tables) => {
        const stats = new Map<string, JobQueueStats>();
        for (const row of tables.jobs.values()) {
          if (row.state !== 'pending') continue;
          const line = stats.get(row.kind) ?? { kind: row.kind, pending: 0, oldestDueAt: null };
          line.pending++;
          if (row.runAt <= ms(now) && (line.oldestDueAt === null || row.runAt < line.oldestDueAt))
            line.oldestDueAt = row.runAt;
          stats.set(row.kind, line);
        }
        return [...stats.values()];
      }),

    pruneDead: (before) =>
      ctx.write((tables) => {
        let pruned = 0;
        for (const row of [...tables.jobs.values()]) {
          if (row.state === 'dead' && row.runAt < ms(before)) {
            tables.jobs.delete(row.id);
            pruned++;
          }
        }
        return pruned;
      }),
  };
}
