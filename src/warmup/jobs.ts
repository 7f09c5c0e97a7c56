/**
 * The warmup evaluation job: one durable job per warmup, which evaluates the boundaries passed and
 * then moves itself to the next boundary (`RetryJobError` without counting an attempt, so one job
 * row carries the whole warmup). A warmup that ended, restarted or lost its IP ends its job.
 */
import type { MailplaneContext } from '../context.js';
import { defineJobHandler } from '../jobs/define.js';
import { RetryJobError } from '../jobs/errors.js';
import type { JobHandler, JobKindOptions } from '../jobs/types.js';
import type { IpRecord, NewJob } from '../store/index.js';

/** Job kind that evaluates one IP's warmup at its interval boundaries. */
export const IP_WARMUP_JOB = 'ip-warmup';

/** Payload of an {@link IP_WARMUP_JOB} job. */
export interface WarmupJobPayload {
  [key: string]: string | number;
  accountId: number;
  ipId: number;
  /** The warmup's `warmupStartedAt` (ns, as a string): a job of an ended warmup does nothing. */
  startedAt: string;
}

/** The job that evaluates the IP's current warmup, due at `runAt` (epoch ms); one per warmup. */
export function warmupJob(ip: IpRecord, runAt: number): NewJob {
  const payload: WarmupJobPayload = { accountId: ip.accountId, ipId: ip.id, startedAt: String(ip.warmupStartedAt) };
  return { kind: IP_WARMUP_JOB, payload, runAt, dedupeKey: `${IP_WARMUP_JOB}:${ip.id}:${ip.warmupStartedAt}` };
}

/** The handler of {@link IP_WARMUP_JOB}, run by the instance's warmup service. */
export function warmupJobHandlers(ctx: Pick<MailplaneContext, 'warmup'>): Record<string, JobHandler | JobKindOptions> {
  const handler = defineJobHandler<WarmupJobPayload>(async (job) => {
    const { accountId, ipId, startedAt } = job.payload;
    if (!Number.isSafeInteger(accountId) || !Number.isSafeInteger(ipId) || !/^\d{1,20}$/.test(String(startedAt))) return;
    const outcome = await ctx.warmup.evaluate(accountId, ipId, BigInt(startedAt));
    if (outcome.kind !== 'running') return;
    throw new RetryJobError('next warmup boundary', { runAt: outcome.nextAtMs, countAttempt: false });
  });
  return { [IP_WARMUP_JOB]: { handler, concurrency: 2, maxAttempts: 20 } };
}
