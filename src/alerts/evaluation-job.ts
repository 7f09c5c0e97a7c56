/**
 * The reputation job: one durable job row (dedupe key `reputation`), so that in a cluster exactly
 * one node runs each evaluation (src/alerts/evaluation.ts), which then moves itself to its next run
 * (`RetryJobError` without counting an attempt), `reputation.evaluationIntervalMs` later.
 */
import { describeError } from '../logging/describe-error.js';
import { RetryJobError } from '../jobs/errors.js';
import { jobHandler, REPUTATION_JOB, type MailplaneJobs } from '../jobs/kinds.js';
import type { JobHandler, JobKindOptions } from '../jobs/types.js';
import { ReputationEvaluation } from './evaluation.js';
import { notifyIncident } from './notify.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Logger } from '../logging/logger.js';
import type { MailplaneConfig } from '../mailplane-config.js';
import type { Clock } from '../model/time.js';
import type { MailplaneStore } from '../store/index.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface ReputationJobDeps {
  readonly config: MailplaneConfig;
  readonly store: MailplaneStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly jobs: JobQueue<MailplaneJobs>;
}

/** Enqueues the reputation job unless one is already pending or running (called by `start()`). */
export async function scheduleReputation(ctx: Pick<ReputationJobDeps, 'jobs' | 'clock'>): Promise<void> {
  await ctx.jobs.enqueue([{ kind: REPUTATION_JOB, payload: {}, runAt: ctx.clock.now(), dedupeKey: REPUTATION_JOB }]);
}

/** The handler of {@link REPUTATION_JOB}. */
export function reputationJobHandlers(ctx: ReputationJobDeps): Record<string, JobHandler | JobKindOptions> {
  const handler = jobHandler(REPUTATION_JOB, async () => {
    const evaluation = new ReputationEvaluation({
      store: ctx.store,
      clock: ctx.clock,
      logger: ctx.logger,
      protection: ctx.config.reputation.protection,
      notify: (store, notice) => notifyIncident(ctx, store, notice),
    });
    // A failed run is retried at the next interval, not by the job's backoff: a job that died after
    // its attempts would end the evaluation until the next start.
    try {
      const run = await evaluation.evaluate();
      if (run.opened > 0 || run.resolved > 0) {
        ctx.jobs.notify();
        ctx.logger.info('reputation: evaluation changed incidents', { ...run });
      }
    } catch (error) {
      ctx.logger.error('reputation: an evaluation failed; the next one runs at its time', {
        error: describeError(error),
      });
    }
    const runAt = ctx.clock.now() + ctx.config.reputation.evaluationIntervalMs;
    throw new RetryJobError('next reputation evaluation', { runAt, countAttempt: false });
  });
  return { [REPUTATION_JOB]: { handler, concurrency: 1 } };
}
