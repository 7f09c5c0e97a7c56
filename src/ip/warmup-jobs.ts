import type { MailplaneContext } from '../context.js';
import { RetryJobError } from '../jobs/errors.js';
import { IP_WARMUP_JOB, jobHandler } from '../jobs/kinds.js';
import type { JobHandler, JobKindOptions } from '../jobs/types.js';
import { evaluateWarmup } from './warmup.js';

/**
 * The warmup evaluation: one durable job per warmup, which evaluates the boundaries passed and
 * then moves itself to the next boundary (`RetryJobError` without counting an attempt, so one job
 * row carries the whole warmup). A warmup that ended, restarted or lost its IP ends its job.
 */
export function warmupJobHandlers(ctx: MailplaneContext): Record<string, JobHandler | JobKindOptions> {
  const handler = jobHandler(IP_WARMUP_JOB, async (job) => {
    const { accountId, ipId, startedAt } = job.payload;
    const outcome = await evaluateWarmup(ctx, accountId, ipId, BigInt(startedAt));
    if (outcome.kind !== 'running') return;
    throw new RetryJobError('next warmup boundary', { runAt: outcome.nextAtMs, countAttempt: false });
  });
  return { [IP_WARMUP_JOB]: { handler, concurrency: 2, maxAttempts: 20 } };
}
