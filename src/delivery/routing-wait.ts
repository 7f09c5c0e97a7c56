/**
 * The outcome "deferred by routing": no pool of the message's chain can send it now (every IP
 * paused, a TPSP without a transport), or the transport made no attempt because the destination
 * was busy or stalled (`DeliveryResult.notAttempted`). This is not a delivery attempt: the message keeps its state
 * (`queued`, or `deferred` after an earlier soft bounce) and its attempt count, gets no event and
 * counts no bounce; a `deliver-message` job asks routing again after `ROUTING_WAIT_MS`, for as
 * long as it takes (waiting never exhausts the retries).
 */
import type { MessageRecord } from '../store/index.js';
import { DELIVER_MESSAGE_JOB, type MailplaneJobs } from '../jobs/kinds.js';
import type { RecordedOutcome } from './outcome.js';
import type { PaidSlot } from './route-admission.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Logger } from '../logging/logger.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface RoutingWaitDeps {
  readonly logger: Logger;
  readonly jobs: JobQueue<MailplaneJobs>;
}

/**
 * Schedules the next routing of a message that has to wait; answers its unchanged state. `slot` is
 * a shaping slot booked for it (src/delivery/route-admission.ts), carried to the next attempt.
 */
export async function deferByRouting(
  ctx: Pick<RoutingWaitDeps, 'jobs' | 'logger'>,
  message: MessageRecord,
  reason: string,
  retryAt: number,
  slot?: PaidSlot,
): Promise<RecordedOutcome> {
  const payload = { messageId: message.id, attempt: message.attempts, ...(slot && { slot }) };
  // The key names the wait's time: the job running now (which may be a wait's own) does not dedupe it away.
  await ctx.jobs.enqueue([
    {
      kind: DELIVER_MESSAGE_JOB,
      payload,
      runAt: retryAt,
      dedupeKey: `${message.id}:${message.attempts}:route:${retryAt}`,
    },
  ]);
  ctx.logger.info('delivery: deferred by routing', { messageId: message.id, reason, retryAt });
  return { status: message.status, retryAt };
}
