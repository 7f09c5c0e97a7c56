import { sql, type Selectable } from 'kysely';
import {
  fairFlow,
  fairOrders,
  jobPriority,
  jobStreamOf,
  type EnqueueResult,
  type JobRecord,
  type JobState,
  type JobStore,
  type JsonObject,
  type NewJob,
} from '../../../src/store/index.js';
import { atomically, type KyselyStoreContext } from './context.js';
import { JOBS_CHANNEL } from './jobs-due.js';
import { bulkInsert } from './bulk-insert.js';
import { toNumber, toNumberOrNull } from './rows.js';
import type { JobsTable } from './tables/jobs.js';

/** Rows per INSERT: five parameters each stays far below both dialects' bind-parameter limits. */
const INSERT_CHUNK = 500;

function toJob(row: Selectable<JobsTable>): JobRecord {
  const state = row.state as JobState;
  return {
    id: toNumber(row.id),
    kind: row.kind,
    payload: JSON.parse(row.payload) as JsonObject,
    state,
    runAt: toNumber(row.run_at),
    leaseUntil: state === 'running' ? toNumberOrNull(row.available_at) : null,
    lockedBy: row.locked_by,
    attempts: toNumber(row.attempts),
    dedupeKey: row.dedupe_key,
    lastError: row.last_error,
    stream: jobStreamOf(toNumber(row.priority)),
    fairKey: row.fair_key,
  };
}

/** Times are stored as integers; a clock may answer fractional milliseconds. */
const ms = (value: number) => Math.floor(value);

/** Claim order: class, fair order, then insertion order (src/store/job-order.ts). RETURNING promises no order. */
const byClaimOrder = (a: Selectable<JobsTable>, b: Selectable<JobsTable>) =>
  toNumber(a.priority) - toNumber(b.priority) ||
  toNumber(a.fair_at) - toNumber(b.fair_at) ||
  toNumber(a.id) - toNumber(b.id);

/**
 * A job handed back due at `at` (a retry, a release): a keyless job's fair order follows its
 * `run_at`; a keyed one keeps its place unless that is before `at` (src/store/job-order.ts).
 */
const fairAtAfterRetry = (at: number) =>
  sql<number>`case when fair_key is null or fair_at < ${at} then ${at} else fair_at end`;

/**
 * The ids a claim chooses among: the first `perKind` due jobs in claim order of each kind (or of
 * all kinds), each one walk down an index (`jobs_kind_claim`, `jobs_claim`) that stops at `perKind`.
 */
function claimCandidates(kinds: readonly string[] | undefined, now: number, perKind: number) {
  const walk = (kind: string | null, index: number) =>
    sql`select "id" from (select "id" from "jobs" where ${kind === null ? sql`` : sql`"kind" = ${kind} and `}"available_at" <= ${now} order by "priority", "fair_at", "id" limit ${perKind}) as ${sql.raw(`c${index}`)}`;
  const walks = kinds ? [...new Set(kinds)].map(walk) : [walk(null, 0)];
  return sql.join(walks, sql` union all `);
}

/** The fair order of each key's latest waiting job in the store, per class, for the keys of `jobs`. */
async function latestFairOrders(ctx: KyselyStoreContext, jobs: readonly NewJob[]): Promise<Map<string, number>> {
  const flows = new Map<string, { key: string; priority: number }>();
  for (const job of jobs) {
    if (!job.fairKey) continue;
    const priority = jobPriority(job.stream);
    flows.set(fairFlow(job.fairKey, priority), { key: job.fairKey, priority });
  }
  const latest = new Map<string, number>();
  for (const [flow, { key, priority }] of flows) {
    const row = await ctx.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.max('fair_at').as('last'))
      .where('fair_key', '=', key)
      .where('priority', '=', priority)
      .where('available_at', 'is not', null)
      .executeTakeFirst();
    const last = toNumberOrNull((row?.last ?? null) as number | string | bigint | null);
    if (last !== null) latest.set(flow, last);
  }
  return latest;
}

const JOB_COLUMNS = [
  'kind',
  'payload',
  'state',
  'run_at',
  'available_at',
  'locked_by',
  'attempts',
  'dedupe_key',
  'active_dedupe_key',
  'last_error',
  'priority',
  'fair_key',
  'fair_at',
] as const;

/** Inserts one chunk and answers, in input order, what became of each job. */
async function insertChunk(
  ctx: KyselyStoreContext,
  jobs: readonly NewJob[],
  fairAt: readonly number[],
): Promise<EnqueueResult[]> {
  // Raw, not built: every accepted send enqueues its delivery job, and building costs more than inserting.
  const inserted = await bulkInsert<
    'jobs',
    { id: number | bigint | string; kind: string; active_dedupe_key: string | null }
  >(
    ctx,
    'jobs',
    JOB_COLUMNS,
    jobs.map((job, index) => [
      job.kind,
      JSON.stringify(job.payload),
      'pending',
      ms(job.runAt),
      ms(job.runAt),
      null,
      0,
      job.dedupeKey ?? null,
      job.dedupeKey ?? null,
      null,
      jobPriority(job.stream),
      job.fairKey ?? null,
      fairAt[index]!,
    ]),
    'on conflict do nothing returning "id", "kind", "active_dedupe_key"',
  );

  // Rows with a key are matched by (kind, key). Keyless rows cannot conflict, so every one of them
  // was inserted, and both dialects number a multi-row VALUES list in order: match them by rank.
  const keyOf = (kind: string, key: string) => JSON.stringify([kind, key]);
  const byKey = new Map<string, number>();
  const keyless: number[] = [];
  for (const row of inserted) {
    const id = toNumber(row.id);
    if (row.active_dedupe_key === null) keyless.push(id);
    else byKey.set(keyOf(row.kind, row.active_dedupe_key), id);
  }
  keyless.sort((a, b) => a - b);

  const results: EnqueueResult[] = [];
  const missing = new Map<string, string[]>();
  const claimed = new Set<string>();
  let next = 0;
  for (const job of jobs) {
    if (job.dedupeKey === undefined || job.dedupeKey === null) {
      results.push({ created: true, id: keyless[next++] ?? null });
      continue;
    }
    const key = keyOf(job.kind, job.dedupeKey);
    const id = byKey.get(key);
    // The first input with a key that was inserted is the new one; repeats in the batch are duplicates.
    if (id !== undefined && !claimed.has(key)) {
      claimed.add(key);
      results.push({ created: true, id });
    } else {
      results.push({ created: false, id: id ?? null });
      if (id === undefined) missing.set(job.kind, [...(missing.get(job.kind) ?? []), job.dedupeKey]);
    }
  }
  if (missing.size === 0) return results;

  // Duplicates of jobs enqueued earlier: answer with the active job's id.
  const existing = new Map<string, number>();
  for (const [kind, keys] of missing) {
    const rows = await ctx.db
      .selectFrom('jobs')
      .select(['id', 'active_dedupe_key'])
      .where('kind', '=', kind)
      .where('active_dedupe_key', 'in', [...new Set(keys)])
      .execute();
    for (const row of rows) existing.set(keyOf(kind, row.active_dedupe_key ?? ''), toNumber(row.id));
  }
  return results.map((result, index) => {
    const job = jobs[index]!;
    if (result.created || result.id !== null || !job.dedupeKey) return result;
    return { created: false, id: existing.get(keyOf(job.kind, job.dedupeKey)) ?? null };
  });
}

/** {@link JobStore} on Kysely. */
export function kyselyJobStore(ctx: KyselyStoreContext): JobStore {
  const { db } = ctx;

  /** The running job `id` leased by `workerId`; every settling call goes through it. */
  const leased = (id: number, workerId: string) =>
    db.updateTable('jobs').where('id', '=', id).where('state', '=', 'running').where('locked_by', '=', workerId);

  return {
    async enqueue(jobs) {
      if (jobs.length === 0) return [];
      const results = await atomically(ctx, async (trx) => {
        const results: EnqueueResult[] = [];
        const latest = await latestFairOrders({ ...ctx, db: trx }, jobs);
        const fairAt = fairOrders(jobs, (key, priority) => latest.get(fairFlow(key, priority)) ?? null);
        for (let start = 0; start < jobs.length; start += INSERT_CHUNK) {
          const chunk = jobs.slice(start, start + INSERT_CHUNK);
          results.push(...(await insertChunk({ ...ctx, db: trx }, chunk, fairAt.slice(start, start + INSERT_CHUNK))));
        }
        // Delivered to the other processes' listeners at commit, and never for a rollback.
        if (ctx.dialect === 'postgres' && results.some((r) => r.created)) {
          await sql`select pg_notify(${JOBS_CHANNEL}, ${ctx.jobsDue.instanceId})`.execute(trx);
        }
        return results;
      });
      if (results.some((r) => r.created)) {
        if (ctx.enqueued) ctx.enqueued.value = true;
        else ctx.jobsDue.emit();
      }
      return results;
    },

    async claim({ workerId, kinds, limit, now, leaseMs }) {
      if (limit <= 0 || kinds?.length === 0) return [];
      now = ms(now);
      limit = Math.floor(limit);
      const leaseEnd = now + ms(leaseMs);
      // Twice the limit per kind, so a claimer that loses the head rows to a concurrent one
      // (PostgreSQL: SKIP LOCKED) still finds the next ones.
      const candidates = claimCandidates(kinds, now, limit * 2);
      const pick = sql`select "id" from "jobs" where "id" in (${candidates}) and "available_at" <= ${now} order by "priority", "fair_at", "id" limit ${limit}`;
      const set = sql`"state" = 'running', "locked_by" = ${workerId}, "available_at" = ${leaseEnd}, "attempts" = "attempts" + 1`;
      // PostgreSQL: FOR UPDATE SKIP LOCKED: concurrent claimers (other processes) skip the rows this
      // one is taking instead of waiting for them, and never take the same row (a row taken meanwhile
      // fails the re-checked "available_at <= now"). The CTE is evaluated once, so the UPDATE touches
      // exactly the rows it locked. SQLite: one UPDATE statement takes the write lock before it reads,
      // so the select and the update are atomic even against other connections to the same file.
      const claim =
        ctx.dialect === 'postgres'
          ? sql<
              Selectable<JobsTable>
            >`with "picked" as (${pick} for update skip locked) update "jobs" set ${set} from "picked" where "jobs"."id" = "picked"."id" returning "jobs".*`
          : sql<Selectable<JobsTable>>`update "jobs" set ${set} where "id" in (${pick}) returning *`;
      const { rows } = await claim.execute(db);
      return [...rows].sort(byClaimOrder).map(toJob);
    },

    async complete(id, workerId) {
      const result = await db
        .deleteFrom('jobs')
        .where('id', '=', id)
        .where('state', '=', 'running')
        .where('locked_by', '=', workerId)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async fail(id, workerId, { error, retryAt }) {
      const values =
        retryAt === null
          ? { state: 'dead', available_at: null, active_dedupe_key: null }
          : {
              state: 'pending',
              run_at: ms(retryAt),
              available_at: ms(retryAt),
              fair_at: fairAtAfterRetry(ms(retryAt)),
            };
      const result = await leased(id, workerId)
        .set({ ...values, locked_by: null, last_error: error })
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async extendLease(id, workerId, until) {
      const result = await leased(id, workerId)
        .set({ available_at: ms(until) })
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async release(id, workerId, runAt) {
      const result = await leased(id, workerId)
        .set({
          state: 'pending',
          locked_by: null,
          attempts: sql<number>`case when attempts > 0 then attempts - 1 else 0 end`,
          ...(runAt === undefined
            ? { available_at: sql<number>`run_at` }
            : { run_at: ms(runAt), available_at: ms(runAt), fair_at: fairAtAfterRetry(ms(runAt)) }),
        })
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async get(id) {
      const row = await db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toJob(row) : null;
    },

    async countByState(kind) {
      let select = db.selectFrom('jobs').select(['state', (eb) => eb.fn.countAll<number | string | bigint>().as('n')]);
      if (kind !== undefined) select = select.where('kind', '=', kind);
      const rows = await select.groupBy('state').execute();
      const counts: Record<JobState, number> = { pending: 0, running: 0, dead: 0 };
      for (const row of rows) counts[row.state as JobState] = toNumber(row.n);
      return counts;
    },

    async queueStats(now) {
      // Two grouped scans of the pending jobs: every kind's count, then the due ones' oldest time.
      const counts = await db
        .selectFrom('jobs')
        .select(['kind', (eb) => eb.fn.countAll<number | string | bigint>().as('n')])
        .where('state', '=', 'pending')
        .groupBy('kind')
        .execute();
      const due = await db
        .selectFrom('jobs')
        .select(['kind', (eb) => eb.fn.min('run_at').as('oldest')])
        .where('state', '=', 'pending')
        .where('run_at', '<=', ms(now))
        .groupBy('kind')
        .execute();
      const oldest = new Map(
        due.map((row) => [row.kind, toNumberOrNull(row.oldest as number | string | bigint | null)]),
      );
      return counts.map((row) => ({
        kind: row.kind,
        pending: toNumber(row.n),
        oldestDueAt: oldest.get(row.kind) ?? null,
      }));
    },

    async pruneDead(before) {
      const result = await db
        .deleteFrom('jobs')
        .where('state', '=', 'dead')
        .where('run_at', '<', ms(before))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
