import { errorKindOf, NotFoundError } from '../errors.js';
import { RetryJobError } from '../jobs/errors.js';
import { DKIM_ROTATION_JOB, DOMAIN_CHECK_JOB, jobHandler } from '../jobs/kinds.js';
import type { JobHandler, JobKindOptions } from '../jobs/types.js';
import { autoRotationDue, ensureRotationJob, nextRotationCheckAt, startDkimRotation } from './dkim-rotation.js';
import { nextDomainCheckAt, type DomainJobDeps } from './verification-schedule.js';
import type { SecretBox } from '../crypto/secrets.js';
import type { MailplaneConfig } from '../mailplane-config.js';
import type { MailplaneStore } from '../store/index.js';
import type { DomainVerifier } from './verification.js';

/** What this module uses of the instance: what it calls uses ({@link DomainJobDeps}), and the fields below. */
export interface VerificationJobsDeps extends DomainJobDeps {
  readonly config: MailplaneConfig;
  readonly store: MailplaneStore;
  readonly secrets: SecretBox;
  readonly domainVerifier: DomainVerifier;
}

/**
 * The scheduled domain re-check: one durable job per domain, which checks the domain and then
 * moves itself to the next time of the schedule (`RetryJobError` without counting an attempt,
 * so the same job row, with its dedupe key, carries the whole schedule). A domain deleted in the
 * meantime ends its job quietly. See docs/dns-verification.md, "When checks run".
 */
export function domainVerificationJobHandlers(
  ctx: Pick<VerificationJobsDeps, 'store' | 'clock' | 'domainVerifier' | 'config' | 'secrets' | 'jobs'>,
): Record<string, JobHandler | JobKindOptions> {
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
    // Automatic DKIM rotation (off by default) is decided here, at the domain's daily check.
    if (autoRotationDue(after, ctx.config, ctx.clock.now())) {
      after = await startDkimRotation(ctx, subAccountId, domainId).catch((error: unknown) => {
        if (error instanceof NotFoundError || errorKindOf(error) === 'conflict') return after!;
        throw error;
      });
    } else if (after.dkimPending || after.dkimPrevious) {
      await ensureRotationJob(ctx, after);
    }
    const runAt = nextDomainCheckAt(after, ctx.clock.now(), before.verified && !after.verified);
    throw new RetryJobError('next scheduled DNS check', { runAt, countAttempt: false });
  });
  // A rotation's own job: checks the pending key's record on the propagation schedule until it
  // signs, then waits for the previous key's grace period to end, and ends with the rotation.
  const rotation = jobHandler(DKIM_ROTATION_JOB, async (job) => {
    const { domainId, subAccountId } = job.payload;
    const before = await ctx.store.domains.get(subAccountId, domainId);
    if (!before || (!before.dkimPending && !before.dkimPrevious)) return;
    let after;
    try {
      after = await ctx.domainVerifier.verify(subAccountId, domainId, { fresh: false, ensureSchedule: false });
    } catch (error) {
      if (error instanceof NotFoundError) return;
      throw error;
    }
    const runAt = nextRotationCheckAt(after, ctx.clock.now());
    if (runAt === null) return;
    throw new RetryJobError('next DKIM rotation step', { runAt, countAttempt: false });
  });
  // DNS checks wait on the network, not the CPU; a few at once keep a burst of new domains moving
  // without crowding out delivery. A store failure is retried with the runner's backoff.
  return {
    [DOMAIN_CHECK_JOB]: { handler, concurrency: 4, maxAttempts: 20 },
    [DKIM_ROTATION_JOB]: { handler: rotation, concurrency: 2, maxAttempts: 20 },
  };
}
