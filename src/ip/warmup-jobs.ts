import type { MailplaneContext } from '../context.js';
import { defineJobHandler } from '../jobs/define.js';
import { RetryJobError } from '../jobs/errors.js';
import type { JobHandler, JobKindOptions } from '../jobs/types.js';
import { evaluateWarmup, IP_WARMUP_JOB, type WarmupJobPayload } from './warmup.js';

/**
 * The warmup evaluation: one durable job per warmup, which evaluates the boundaries passed and
 * then moves itself to the next boundary (`RetryJobError` without counting an attempt, so one job
 * row carries the whole warmup). A warmup that ended, restarted or lost its IP ends its job.
 */
export function warmupJobHandlers(ctx: MailplaneContext): Record<string, JobHandler | JobKindOptions> {
  const handler = defineJobHandler<WarmupJobPayload>(async (job) => {
    const { accountId, ipId, startedAt } = job.payload;
    if (!Number.isSafeInteger(accountId) || !Number.isSafeInteger(ipId) || !/^\d{1,20}$/.test(String(startedAt))) return;
    const outcome = await evaluateWarmup(ctx, accountId, ipId, BigInt(startedAt));
    if (outcome.kind !== 'running') return;
    throw new RetryJobError('next warmup boundary', { runAt: outcome.nextAtMs, countAttempt: false });
  });
  return { [IP_WARMUP_JOB]: { handler, concurrency: 2, maxAttempts: 20 } };
}
