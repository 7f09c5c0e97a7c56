/**
 * The warmup evaluation job: one durable job per warmup, which evaluates the boundaries passed and
 * then moves itself to the next boundary (`RetryJobError` without counting an attempt, so one job
 * row carries the whole warmup). A warmup that ended, restarted or lost its IP ends its job. The
 * kind and its payload schema are declared in the job registry (src/jobs/kinds.ts).
 */
import { RetryJobError } from '../jobs/errors.js';
import { IP_WARMUP_JOB, jobHandler, type MailplaneJobs } from '../jobs/kinds.js';
import type { EnqueueJob } from '../jobs/queue.js';
import type { JobHandler, JobKindOptions } from '../jobs/types.js';
import type { IpRecord } from '../store/index.js';

/** The job that evaluates the IP's current warmup, due at `runAt` (epoch ms); one per warmup. */
export function warmupJob(ip: IpRecord, runAt: number): EnqueueJob<MailplaneJobs> {
  const payload = { accountId: ip.accountId, ipId: ip.id, startedAt: String(ip.warmupStartedAt) };
  return { kind: IP_WARMUP_JOB, payload, runAt, dedupeKey: `${IP_WARMUP_JOB}:${ip.id}:${ip.warmupStartedAt}` };
}

/**
 * What the job asks of the instance's warmup service (`WarmupService.evaluate`, service.ts): named
 * here, since the service enqueues this job and a type import back would close a cycle.
 */
export interface WarmupEvaluator {
  evaluate(
    accountId: number,
    ipId: number,
    startedAt: bigint,
  ): Promise<{ kind: 'gone' | 'complete' } | { kind: 'running'; nextAtMs: number }>;
}

/** The handler of {@link IP_WARMUP_JOB}, run by the instance's warmup service. */
export function warmupJobHandlers(ctx: {
  readonly warmup: WarmupEvaluator;
}): Record<string, JobHandler | JobKindOptions> {
  const handler = jobHandler(IP_WARMUP_JOB, async (job) => {
    const { accountId, ipId, startedAt } = job.payload;
    const outcome = await ctx.warmup.evaluate(accountId, ipId, BigInt(startedAt));
    if (outcome.kind !== 'running') return;
    throw new RetryJobError('next warmup boundary', { runAt: outcome.nextAtMs, countAttempt: false });
  });
  return { [IP_WARMUP_JOB]: { handler, concurrency: 2, maxAttempts: 20 } };
}
