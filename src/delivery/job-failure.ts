/**
 * What becomes of the messages a delivery job still held when the job runner gives up on it
 * (`JobKindOptions.giveUp`, docs/jobs.md "When a job gives up"): each one still waiting for that
 * job (`queued`, `deferred` at the job's attempt, `scheduled`) is dropped with reason
 * `JOB_FAILED` and the job's last error in plain words, through the lifecycle writer, so the
 * message's status, its Dropped event, the counters and the webhook outbox's post all say so; and
 * one error line per message is logged. Without this such a message stayed `queued` for ever,
 * with no event (issue 27: a retry job that could not be written).
 *
 * A write that fails throws: the runner then keeps the job and gives up again later, so a message
 * is never left without a word because the store was down when its job died.
 */
import { applyLifecycle, type LifecycleApplyDeps } from '../lifecycle/apply.js';
import type { JobRecord, MailplaneStore, MessageRecord, SendBatchRecord } from '../store/index.js';
import type { Logger } from '../logging/logger.js';
import type { MailplaneMetrics } from '../metrics/metrics.js';

/** What this module uses of the instance: what it calls uses ({@link LifecycleApplyDeps}), and the fields below. */
export interface JobFailureDeps extends LifecycleApplyDeps {
  readonly store: MailplaneStore;
  readonly logger: Logger;
  readonly metrics: MailplaneMetrics;
}

/** The drop reason of a message whose job failed for good (its Dropped event's `reason`). */
export const JOB_FAILED = 'JOB_FAILED';

/** What {@link dropForFailedJob} is given: the job given up on, why, and the messages it held. */
export interface FailedJob {
  job: Pick<JobRecord, 'id' | 'kind'>;
  /** The job's last error, as the runner describes it. */
  reason: string;
  batch: SendBatchRecord;
  /** The messages still waiting for the job, as read now (their status is the compare-and-set's). */
  messages: readonly MessageRecord[];
}

/** The description a user reads on the message and its event. */
function describeFailure(kind: string, reason: string): string {
  return `the ${kind} job that was to send this message failed for good, so it was not sent: ${reason}`.slice(0, 2_000);
}

/** Drops `failed.messages` (see the module comment) in one transaction; answers how many it dropped. */
export async function dropForFailedJob(ctx: JobFailureDeps, failed: FailedJob): Promise<number> {
  const { job, reason, batch, messages } = failed;
  if (messages.length === 0) return 0;
  const description = describeFailure(job.kind, reason);
  const atMs = ctx.clock.now();
  const dropped: MessageRecord[] = [];
  await ctx.store.transaction(async (tx) => {
    dropped.length = 0;
    for (const message of messages) {
      const result = await applyLifecycle(ctx, tx, {
        message,
        batch,
        outcome: 'job-failed',
        atMs,
        fields: { smtpDescription: `${JOB_FAILED}: ${description}` },
        metadata: { description, jobKind: job.kind },
      });
      if (result.kind === 'applied') dropped.push(message);
    }
  });
  for (const message of dropped) {
    ctx.logger.error('delivery: message dropped, its job failed for good', {
      messageId: message.id,
      jobKind: job.kind,
      jobId: job.id,
      reason,
    });
    ctx.metrics.messages.inc({ outcome: 'job-failed' });
    ctx.metrics.dropped.inc({ reason: JOB_FAILED });
  }
  return dropped.length;
}
