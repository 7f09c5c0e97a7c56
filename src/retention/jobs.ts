/**
 * The retention job: one durable job row (dedupe key `retention`) that deletes messages, events and
 * received messages older than `retention.days` (or a sub-account's own `retentionDays`), webhook
 * delivery log rows and the received messages' post log older than `retention.days`, expired
 * idempotency keys, expired suppressions, idle shaping states and the reputation guard's hourly
 * counters older than 8 days, `batchSize` rows per statement, then moves itself to its next run
 * (`RetryJobError` without counting an attempt). The daily statistics counters are separate rows and
 * are never touched. The kind and its payload schema are in the job registry (src/jobs/kinds.ts).
 */
import { RetryJobError } from '../jobs/errors.js';
import { RETENTION_JOB, jobHandler, type MailplaneJobs } from '../jobs/kinds.js';
import type { JobHandler, JobKindOptions } from '../jobs/types.js';
import { msToNs, type Clock } from '../model/time.js';
import { hourOfMs, type RetentionScope, type MailplaneStore } from '../store/index.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Logger } from '../logging/logger.js';
import type { MailplaneConfig } from '../mailplane-config.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface RetentionJobsDeps {
  readonly config: MailplaneConfig;
  readonly store: MailplaneStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly jobs: JobQueue<MailplaneJobs>;
}

const DAY_MS = 86_400_000;

/** What one run deleted, and whether rows older than the cut-off are left (the next run is then due at once). */
export interface RetentionRun {
  messages: number;
  events: number;
  more: boolean;
}

/** One cut-off of a run: rows of `scope` older than `before`. */
interface RetentionPass {
  before: bigint;
  scope?: RetentionScope;
}

/**
 * The passes of a run: each sub-account with a retention of its own at its own cut-off, then
 * every other sub-account at the instance's (none when `days` is 0, which keeps them forever).
 */
async function retentionPasses(ctx: Pick<RetentionJobsDeps, 'store' | 'clock' | 'config'>): Promise<RetentionPass[]> {
  const cutOff = (days: number) => msToNs(ctx.clock.now() - days * DAY_MS);
  const overrides = await ctx.store.subAccounts.listRetentionOverrides();
  const passes: RetentionPass[] = overrides.map((o) => ({
    before: cutOff(o.retentionDays),
    scope: { subAccount: { accountId: o.accountId, subAccountId: o.subAccountId } },
  }));
  const { days } = ctx.config.retention;
  if (days > 0)
    passes.push({
      before: cutOff(days),
      ...(overrides.length > 0 && { scope: { exceptSubAccountIds: overrides.map((o) => o.subAccountId) } }),
    });
  return passes;
}

/**
 * Deletes old events, then old messages, `batchSize` rows per statement. A run stops a table after
 * `batchesPerRun` full batches (statements that found `batchSize` rows) and is then due again at
 * once; a pass that finds less than a batch costs one statement, so every sub-account with a
 * retention of its own is visited on every run however many rows the ones before it had.
 */
export async function runRetention(
  ctx: Pick<RetentionJobsDeps, 'store' | 'clock' | 'config'>,
  signal?: AbortSignal,
): Promise<RetentionRun> {
  const { batchSize } = ctx.config.retention;
  const passes = await retentionPasses(ctx);
  const events = await deleteByPasses(ctx, passes, signal, (pass) =>
    ctx.store.messages.deleteEventsBefore(pass.before, batchSize, pass.scope),
  );
  if (events.more && signal?.aborted) return { messages: 0, events: events.deleted, more: true };
  const messages = await deleteByPasses(ctx, passes, signal, (pass) =>
    ctx.store.messages.deleteMessagesBefore(pass.before, batchSize, pass.scope),
  );
  return { messages: messages.deleted, events: events.deleted, more: events.more || messages.more };
}

/**
 * Runs `remove` (one statement deleting at most `batchSize` rows of a pass, answering how many) for
 * each pass until a batch is short, at most `batchesPerRun` full batches in all.
 */
async function deleteByPasses(
  ctx: Pick<RetentionJobsDeps, 'config'>,
  passes: readonly RetentionPass[],
  signal: AbortSignal | undefined,
  remove: (pass: RetentionPass) => Promise<number>,
): Promise<PurgeResult> {
  const { batchSize, batchesPerRun } = ctx.config.retention;
  let deleted = 0;
  let fullBatches = 0;
  for (const pass of passes) {
    let count = batchSize;
    while (count === batchSize && fullBatches < batchesPerRun) {
      if (signal?.aborted) return { deleted, more: true };
      count = await remove(pass);
      deleted += count;
      if (count === batchSize) fullBatches += 1;
    }
    if (count === batchSize) return { deleted, more: true };
  }
  return { deleted, more: false };
}

/** What a purge deleted, and whether rows are left for the next run (due at once). */
interface PurgeResult {
  deleted: number;
  more: boolean;
}

/**
 * Runs `deleteBatch` (one statement deleting at most `batchSize` rows, answering how many) until a
 * batch is short, at most `batchesPerRun` times.
 */
async function purgeInBatches(
  ctx: Pick<RetentionJobsDeps, 'config'>,
  signal: AbortSignal | undefined,
  deleteBatch: (batchSize: number) => Promise<number>,
): Promise<PurgeResult> {
  const { batchSize, batchesPerRun } = ctx.config.retention;
  let deleted = 0;
  for (let batch = 0; batch < batchesPerRun; batch += 1) {
    if (signal?.aborted) return { deleted, more: true };
    const count = await deleteBatch(batchSize);
    deleted += count;
    if (count < batchSize) return { deleted, more: false };
  }
  return { deleted, more: true };
}

/**
 * Deletes expired idempotency keys (kept 24 hours, src/idempotency/keys.ts), at most
 * `batchSize` per statement and `batchesPerRun` statements; answers how many, and whether more are
 * left. Runs whatever `retention.days` says: a key is never kept past its day.
 */
export async function purgeIdempotencyKeys(
  ctx: Pick<RetentionJobsDeps, 'store' | 'clock' | 'config'>,
  signal?: AbortSignal,
): Promise<PurgeResult> {
  return purgeInBatches(ctx, signal, (batchSize) =>
    ctx.store.idempotency.deleteExpired(Math.floor(ctx.clock.now()), batchSize),
  );
}

/**
 * Deletes webhook delivery log rows older than `retention.days` (none when it is 0), as
 * {@link purgeIdempotencyKeys} does: `batchSize` per statement, at most `batchesPerRun` statements.
 * Webhooks belong to the account, so a sub-account's own retention does not apply to their log.
 */
export async function purgeWebhookDeliveries(
  ctx: Pick<RetentionJobsDeps, 'store' | 'clock' | 'config'>,
  signal?: AbortSignal,
): Promise<PurgeResult> {
  const { days } = ctx.config.retention;
  if (days === 0) return { deleted: 0, more: false };
  const before = msToNs(ctx.clock.now() - days * DAY_MS);
  return purgeInBatches(ctx, signal, (batchSize) => ctx.store.webhooks.deleteDeliveriesBefore(before, batchSize));
}

/**
 * Deletes received messages (docs/inbound.md) as {@link runRetention} deletes sent ones: older than
 * the sub-account's own `retentionDays`, or else `retention.days` (none when it is 0), `batchSize`
 * per statement, at most `batchesPerRun` full statements. Their post log goes with them.
 */
export async function purgeInboundMessages(
  ctx: Pick<RetentionJobsDeps, 'store' | 'clock' | 'config'>,
  signal?: AbortSignal,
): Promise<PurgeResult> {
  const { batchSize } = ctx.config.retention;
  return deleteByPasses(ctx, await retentionPasses(ctx), signal, (pass) =>
    ctx.store.inbound.deleteMessagesBefore(pass.before, batchSize, pass.scope),
  );
}

/**
 * Deletes rows of the received messages' post log older than `retention.days` (none when it is 0),
 * as {@link purgeWebhookDeliveries} deletes the webhook delivery log's.
 */
export async function purgeInboundPostAttempts(
  ctx: Pick<RetentionJobsDeps, 'store' | 'clock' | 'config'>,
  signal?: AbortSignal,
): Promise<PurgeResult> {
  const { days } = ctx.config.retention;
  if (days === 0) return { deleted: 0, more: false };
  const before = msToNs(ctx.clock.now() - days * DAY_MS);
  return purgeInBatches(ctx, signal, (batchSize) => ctx.store.inbound.deletePostAttemptsBefore(before, batchSize));
}

/**
 * Deletes suppressions whose expiry has passed (they no longer suppress; docs/suppressions.md), as
 * {@link purgeIdempotencyKeys} does: `batchSize` per statement, at most `batchesPerRun` statements.
 */
export async function purgeExpiredSuppressions(
  ctx: Pick<RetentionJobsDeps, 'store' | 'clock' | 'config'>,
  signal?: AbortSignal,
): Promise<PurgeResult> {
  return purgeInBatches(ctx, signal, (batchSize) =>
    ctx.store.suppressions.deleteExpired(msToNs(ctx.clock.now()), batchSize),
  );
}

/** How long a traffic-shaping state is kept after its last use. */
const SHAPING_STATE_KEPT_MS = 2 * 86_400_000;

/** Hours of reputation counters kept: the longest alert window (7 days) and a day's margin. */
const REPUTATION_HOURS_KEPT = 8 * 24;

/**
 * Deletes the reputation guard's hourly buckets older than {@link REPUTATION_HOURS_KEPT}, as
 * {@link purgeIdempotencyKeys} does: `batchSize` per statement, at most `batchesPerRun` statements.
 */
export async function purgeReputationBuckets(
  ctx: Pick<RetentionJobsDeps, 'store' | 'clock' | 'config'>,
  signal?: AbortSignal,
): Promise<PurgeResult> {
  const beforeHour = hourOfMs(ctx.clock.now()) - REPUTATION_HOURS_KEPT;
  return purgeInBatches(ctx, signal, (batchSize) => ctx.store.reputation.deleteBefore(beforeHour, batchSize));
}

/** Enqueues the retention job unless one is already pending or running (called by `start()`). */
export async function scheduleRetention(ctx: Pick<RetentionJobsDeps, 'jobs' | 'clock'>): Promise<void> {
  await ctx.jobs.enqueue([{ kind: RETENTION_JOB, payload: {}, runAt: ctx.clock.now(), dedupeKey: RETENTION_JOB }]);
}

/** The handler of {@link RETENTION_JOB}. */
export function retentionJobHandlers(ctx: RetentionJobsDeps): Record<string, JobHandler | JobKindOptions> {
  const handler = jobHandler(RETENTION_JOB, async (_job, { signal }) => {
    const run = await runRetention(ctx, signal);
    const keys = await purgeIdempotencyKeys(ctx, signal);
    const log = await purgeWebhookDeliveries(ctx, signal);
    const suppressions = await purgeExpiredSuppressions(ctx, signal);
    // Traffic-shaping states idle for two days (docs/shaping.md): a few rows per source and destination.
    const shapingStates = await ctx.store.shaping.prune(ctx.clock.now() - SHAPING_STATE_KEPT_MS);
    const reputation = await purgeReputationBuckets(ctx, signal);
    const inbound = await purgeInboundMessages(ctx, signal);
    const inboundLog = await purgeInboundPostAttempts(ctx, signal);
    if (
      run.messages > 0 ||
      run.events > 0 ||
      keys.deleted > 0 ||
      log.deleted > 0 ||
      suppressions.deleted > 0 ||
      shapingStates > 0 ||
      reputation.deleted > 0 ||
      inbound.deleted > 0 ||
      inboundLog.deleted > 0
    ) {
      ctx.logger.info('retention deleted old rows', {
        messages: run.messages,
        events: run.events,
        idempotencyKeys: keys.deleted,
        webhookDeliveries: log.deleted,
        expiredSuppressions: suppressions.deleted,
        shapingStates,
        reputationBuckets: reputation.deleted,
        inboundMessages: inbound.deleted,
        inboundPostAttempts: inboundLog.deleted,
      });
    }
    const more =
      run.more || keys.more || log.more || suppressions.more || reputation.more || inbound.more || inboundLog.more;
    const runAt = ctx.clock.now() + (more ? 0 : ctx.config.retention.intervalMs);
    throw new RetryJobError(more ? 'more old rows to delete' : 'next retention run', { runAt, countAttempt: false });
  });
  return { [RETENTION_JOB]: { handler, concurrency: 1 } };
}
