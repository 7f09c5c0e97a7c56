/**
 * Writes one lifecycle step (src/lifecycle/table.ts) for one message, inside the caller's
 * transaction: the status move (compare-and-set, so a terminal state is reached once), the
 * suppression, the events with their counters, and the next retry. Delivery outcomes, bounce
 * reports, complaints, opens, clicks and unsubscribes all come through here; what differs between
 * them (the SMTP reply, the route, the event's details) is what the caller passes in.
 */
import { deliveryClass } from '../jobs/delivery-class.js';
import { DELIVER_MESSAGE_JOB, type MailplaneJobs } from '../jobs/kinds.js';
import { msToNs } from '../model/time.js';
import type { MailplaneStore, MessageOutcome, MessageRecord, MessageStatus, SendBatchRecord } from '../store/index.js';
import { recordMessageEvent, type LifecycleEventsDeps } from './events.js';
import { endsDelivery } from './reputation-counts.js';
import { lifecycleRow, NEW, stepCounters, type LifecycleOutcome, type LifecycleStep } from './table.js';
import type { JobQueue } from '../jobs/queue.js';

/** What this module uses of the instance: what it calls uses ({@link LifecycleEventsDeps}), and the fields below. */
export interface LifecycleApplyDeps extends LifecycleEventsDeps {
  readonly jobs: JobQueue<MailplaneJobs>;
}

/** What {@link applyLifecycle} is asked to record. */
export interface LifecycleInput {
  /** The message as the caller read it (its status picks the row; see `LifecycleStep.guard`). */
  message: MessageRecord;
  batch: SendBatchRecord;
  outcome: LifecycleOutcome;
  /** When it happened, epoch milliseconds of the instance clock. */
  atMs: number;
  /** Written with the status move besides the status (delivery: attempts, reply, route; a report: its reply). */
  fields?: Omit<MessageOutcome, 'status' | 'updated'>;
  /**
   * The events' metadata, or a function of whether this is the message's first event of the type
   * (opens and clicks say so in the event). A step's `reason` is added after it.
   */
  metadata?: Record<string, unknown> | ((first: boolean) => Record<string, unknown>);
  /** The suppression's `smtpError` (the reply of a hard bounce); default ''. */
  smtpError?: string;
  /** For a step with a retry: when it is due (epoch ms). The retry job names `fields.attempts`. */
  retryAt?: number;
}

/**
 * What {@link applyLifecycle} did: `applied` (with the step, and whether it was the message's first
 * event of its type); `moved-on`, the message is no longer in a status the outcome applies to
 * (another worker or report got there first), nothing written; `repeat`, the outcome was already
 * recorded for this message (only the suppression was written again, where the table says so);
 * `gone`, the suppression the step requires could not be written because the message's
 * sub-account no longer exists, nothing else written.
 */
export type LifecycleResult =
  { kind: 'applied'; step: LifecycleStep; first: boolean } | { kind: 'moved-on' | 'repeat' | 'gone' };

/** Records `input.outcome` for `input.message` through `tx` (a transaction's store): see the module comment. */
export async function applyLifecycle(
  ctx: LifecycleApplyDeps,
  tx: MailplaneStore,
  input: LifecycleInput,
): Promise<LifecycleResult> {
  const { message, batch, outcome, atMs } = input;
  const { from: allowed, ...step } = lifecycleRow(outcome);
  // A guard on the allowed statuses does not trust the status read before the transaction: the
  // compare-and-set decides.
  if (step.guard === 'found' && !allowed.includes(message.status)) return { kind: 'moved-on' };
  const now = msToNs(atMs);
  const eventType = step.events[0]?.type;
  let first = true;
  if (eventType !== undefined && (step.repeat !== null || Object.values(step.counters).includes('first-event'))) {
    first = !(await tx.messages.listEvents(message.id)).some((event) => event.type === eventType);
  }
  if (!first && step.repeat === 'ignore') return { kind: 'repeat' };

  if (step.to !== null) {
    const from = step.guard === 'found' ? [message.status] : allowed.filter((s): s is MessageStatus => s !== NEW);
    if (!(await tx.messages.recordOutcome(message.id, from, { status: step.to, ...input.fields, updated: now })))
      return { kind: 'moved-on' };
  }
  if (step.suppress !== null) {
    const added = await tx.suppressions.add(message.subAccountId, [
      { email: message.to.email, type: step.suppress, smtpError: input.smtpError ?? '', created: now },
    ]);
    // Nothing added: the sub-account no longer exists (the store adds nothing then, see SuppressionStore).
    if (added.length === 0 && step.suppressionRequired) return { kind: 'gone' };
  }
  if (!first && step.repeat === 'suppress-only') return { kind: 'repeat' };

  const metadata = typeof input.metadata === 'function' ? input.metadata(first) : (input.metadata ?? {});
  const counters = stepCounters(step, { firstAttempt: message.attempts === 0, firstEvent: first });
  // A delivery attempt writes its route with its outcome: its IP is the one the counters file it under.
  const attempt =
    input.fields?.ipId !== undefined ? { ipId: input.fields.ipId, ended: endsDelivery(outcome) } : undefined;
  for (const [index, event] of step.events.entries()) {
    await recordMessageEvent(ctx, tx, {
      message,
      batch,
      type: event.type,
      metadata: event.reason ? { ...metadata, reason: event.reason } : metadata,
      // A step's counters go with its first event.
      counters: index === 0 ? counters : {},
      ...(index === 0 && attempt && { attempt }),
      atMs,
    });
  }
  if (step.retry === 'next-step' && input.retryAt !== undefined) {
    const attempt = input.fields?.attempts ?? message.attempts;
    await ctx.jobs.enqueue(
      [
        {
          kind: DELIVER_MESSAGE_JOB,
          payload: { messageId: message.id, attempt },
          runAt: input.retryAt,
          dedupeKey: `${message.id}:${attempt}`,
          ...deliveryClass(batch),
        },
      ],
      { store: tx },
    );
  }
  return { kind: 'applied', step, first };
}
