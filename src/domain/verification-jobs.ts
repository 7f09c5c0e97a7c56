import type { MailplaneContext } from '../context.js';
import { NotFoundError } from '../errors.js';
import { RetryJobError } from '../jobs/errors.js';
import { DOMAIN_CHECK_JOB, jobHandler } from '../jobs/kinds.js';
import type { JobHandler, JobKindOptions } from '../jobs/types.js';
import { nextDomainCheckAt } from './verification-schedule.js';

/**
 * The scheduled domain re-check: one durable job per domain, which checks the domain and then
 * moves itself to the next time of the schedule (`RetryJobError` without counting an attempt,
 * so the same job row, with its dedupe key, carries the whole schedule). A domain deleted in the
 * meantime ends its job quietly. See docs/dns-verification.md, "When checks run".
 */
export function domainVerificationJobHandlers(ctx: Pick<MailplaneContext, 'store' | 'clock' | 'domainVerifier'>): Record<string, JobHandler | JobKindOptions> {
  const handler = jobHandler(DOMAIN_CHECK_JOB, async (job) => {
    const { domainId, subAccountId } = job.payload;
    const before = await ctx.store.domains.get(subAccountId, domainId);
    if (!before) return;
    let after;
    try {
      after = await ctx.domainVerifier.verify(subAccountId, domainId, { fresh: false, ensureSchedule: false });
    } catch (error) {
      if (error instanceof NotFoundError) return;
      throw error;
    }
    const runAt = nextDomainCheckAt(after, ctx.clock.now(), before.verified && !after.verified);
    throw new RetryJobError('next scheduled DNS check', { runAt, countAttempt: false });
  });
  // DNS checks wait on the network, not the CPU; a few at once keep a burst of new domains moving
  // without crowding out delivery. A store failure is retried with the runner's backoff.
  return { [DOMAIN_CHECK_JOB]: { handler, concurrency: 4, maxAttempts: 20 } };
}
