/**
 * The message lifecycle as one table: for each thing that can happen to a message (an outcome) and
 * each status the message is in, the status it moves to, the events recorded, the counters added,
 * the suppression written and the retry scheduled. It is the spec's state table (docs/delivery.md,
 * "Outcomes"; docs/bounces.md, "What a report does") as data: acceptance, delivery attempts,
 * asynchronous bounces, complaints, opens, clicks and unsubscribes all read it, and
 * src/lifecycle/apply.ts is the one piece of code that writes what it says.
 *
 * A cc or bcc copy is a message of its own (src/sending/recipients.ts), so every row applies to a
 * copy exactly as to a recipient's message: a copy's bounce or complaint ends or suppresses the
 * copy, never the recipient it was a copy of.
 */
import { EventType, SuppressionType, type MessageStatus } from '../store/index.js';
import type { StoredCounter } from '../store/stats-store.js';

/** The status of a message that does not exist yet (what acceptance starts from). */
export const NEW = 'new';

/** A message's status, or {@link NEW} before it is accepted. */
export type LifecycleStatus = MessageStatus | typeof NEW;

/** Every message status, in the order the spec lists them, then {@link NEW}. */
export const LIFECYCLE_STATUSES: readonly LifecycleStatus[] = [
  'queued',
  'deferred',
  'delivered',
  'dropped',
  'smtp_dropped',
  'hard_bounced',
  'scheduled',
  'cancelled',
  NEW,
];

/**
 * What can happen to a message:
 *
 * - `accepted` / `refused`: a send accepted the recipient, or dropped it before sending (invalid,
 *   suppressed, duplicate, unverified sending domain);
 * - `delivered`, `soft-bounced` (retries left), `retries-exhausted`, `policy-retries-exhausted`
 *   (a soft bounce flagged `policy` whose retries ran out), `hard-bounced`, `smtp-dropped`: what a
 *   delivery attempt ended in (see {@link attemptOutcome});
 * - `bounce-reported`: a failure notice (DSN) arrived after the message was accepted by its server;
 * - `complained`, `opened`, `clicked`, `unsubscribed`: what the recipient did;
 * - `scheduled`: a send with `sendAt` accepted the recipient, to be sent later; `released`: its time
 *   came and the checks made again then passed (it is queued for delivery); `refused-at-release`:
 *   they failed (suppressed meanwhile, domain no longer verified, sub-account blocked), so it is
 *   dropped; `cancelled`: it was cancelled before its time (docs/sending.md, "Scheduled sending");
 * - `job-failed`: the job that was to deliver or release it failed for good (its attempts used up,
 *   or the store kept failing its outcome): it is dropped with reason `JOB_FAILED` rather than
 *   left waiting for a job that will never run again (docs/jobs.md, "When a job gives up").
 */
export type LifecycleOutcome =
  | 'accepted'
  | 'refused'
  | 'delivered'
  | 'soft-bounced'
  | 'retries-exhausted'
  | 'policy-retries-exhausted'
  | 'hard-bounced'
  | 'smtp-dropped'
  | 'bounce-reported'
  | 'complained'
  | 'opened'
  | 'clicked'
  | 'unsubscribed'
  | 'scheduled'
  | 'released'
  | 'refused-at-release'
  | 'cancelled'
  | 'job-failed';

/** Every {@link LifecycleOutcome}. */
export const LIFECYCLE_OUTCOMES: readonly LifecycleOutcome[] = [
  'accepted',
  'refused',
  'delivered',
  'soft-bounced',
  'retries-exhausted',
  'policy-retries-exhausted',
  'hard-bounced',
  'smtp-dropped',
  'bounce-reported',
  'complained',
  'opened',
  'clicked',
  'unsubscribed',
  'scheduled',
  'released',
  'refused-at-release',
  'cancelled',
  'job-failed',
];

/**
 * When a counter is added: `always`; `first-attempt` only when the message had made no delivery
 * attempt before (softBounced counts messages, not attempts); `first-event` only for the message's
 * first event of this type (opened and clicked count messages).
 */
export type CountRule = 'always' | 'first-attempt' | 'first-event';

/** One event a step records; `reason` goes into its metadata. */
export interface StepEvent {
  type: EventType;
  reason?: 'SMTP_DROPPED' | 'RETRIES_EXHAUSTED' | 'JOB_FAILED';
}

/** What an outcome does to a message in a given status. */
export interface LifecycleStep {
  /** The status the message moves to; `null`: it keeps its status. */
  to: MessageStatus | null;
  /**
   * Which statuses the move may start from when it is written (compare-and-set): `found`, only the
   * one the caller read (a delivery attempt records exactly one outcome, however many workers ran
   * it); `allowed`, any status this outcome is allowed from (a bounce report ends a message still
   * being retried even if a retry moved it meanwhile).
   */
  guard: 'found' | 'allowed';
  /** Events recorded, in order. */
  events: readonly StepEvent[];
  /** Counters added (on the event's UTC day, for all mail and each group of the send). */
  counters: Partial<Record<StoredCounter, CountRule>>;
  /** The suppression added for the message's address, if any. */
  suppress: SuppressionType | null;
  /**
   * True when nothing else is recorded unless the suppression is written (an unsubscribe of a
   * message whose sub-account, and so its suppression list, was deleted does nothing).
   */
  suppressionRequired: boolean;
  /** `next-step`: a `deliver-message` job at the next step of the retry schedule. */
  retry: 'next-step' | null;
  /**
   * How a repeat on the same message is told (by an earlier event of the step's first type):
   * `ignore`, it does nothing at all; `suppress-only`, it writes the suppression again and nothing
   * else; `null`, it is recorded again (the status guard keeps moves from repeating).
   */
  repeat: 'ignore' | 'suppress-only' | null;
}

/** A table row: the statuses an outcome is allowed from, and its step. */
interface Row extends LifecycleStep {
  from: readonly LifecycleStatus[];
}

const PENDING: readonly MessageStatus[] = ['queued', 'deferred'];
const ANY: readonly MessageStatus[] = ['queued', 'deferred', 'delivered', 'dropped', 'smtp_dropped', 'hard_bounced'];

const row = (
  from: readonly LifecycleStatus[],
  step: Partial<LifecycleStep> & Pick<LifecycleStep, 'events' | 'counters'>,
): Row => ({
  from,
  to: null,
  guard: 'found',
  suppress: null,
  suppressionRequired: false,
  retry: null,
  repeat: null,
  ...step,
});

/** The table. Reading order: from which statuses, to which, then what is written. */
const TABLE: Record<LifecycleOutcome, Row> = {
  accepted: row([NEW], { to: 'queued', events: [{ type: EventType.Processed }], counters: { processed: 'always' } }),
  refused: row([NEW], {
    to: 'dropped',
    events: [{ type: EventType.Processed }, { type: EventType.Dropped }],
    counters: { processed: 'always', dropped: 'always' },
  }),
  delivered: row(PENDING, {
    to: 'delivered',
    events: [{ type: EventType.Delivered }],
    counters: { delivered: 'always' },
  }),
  'soft-bounced': row(PENDING, {
    to: 'deferred',
    events: [{ type: EventType.SoftBounced }],
    counters: { softBounced: 'first-attempt' },
    retry: 'next-step',
  }),
  // Not suppressed: the address never failed permanently (a server down for a day).
  'retries-exhausted': row(PENDING, {
    to: 'hard_bounced',
    events: [{ type: EventType.HardBounced, reason: 'RETRIES_EXHAUSTED' }],
    counters: { hardBounced: 'always', softBounced: 'first-attempt' },
  }),
  'policy-retries-exhausted': row(PENDING, {
    to: 'smtp_dropped',
    events: [{ type: EventType.Dropped, reason: 'SMTP_DROPPED' }],
    counters: { smtpDropped: 'always', softBounced: 'first-attempt' },
  }),
  'hard-bounced': row(PENDING, {
    to: 'hard_bounced',
    events: [{ type: EventType.HardBounced }],
    counters: { hardBounced: 'always' },
    suppress: SuppressionType.HardBounce,
  }),
  // A refusal for policy or reputation: the address is fine, the sender was refused.
  'smtp-dropped': row(PENDING, {
    to: 'smtp_dropped',
    events: [{ type: EventType.Dropped, reason: 'SMTP_DROPPED' }],
    counters: { smtpDropped: 'always' },
  }),
  // Accepted by its server and bounced later, or still being retried (its retry then finds it ended).
  'bounce-reported': row(['delivered', 'deferred'], {
    to: 'hard_bounced',
    guard: 'allowed',
    events: [{ type: EventType.HardBounced }],
    counters: { hardBounced: 'always' },
    suppress: SuppressionType.HardBounce,
  }),
  complained: row(ANY, {
    events: [{ type: EventType.Spam }],
    counters: { spam: 'always' },
    suppress: SuppressionType.SpamComplaint,
    repeat: 'ignore',
  }),
  opened: row(ANY, { events: [{ type: EventType.Opened }], counters: { opened: 'first-event' } }),
  clicked: row(ANY, { events: [{ type: EventType.Clicked }], counters: { clicked: 'first-event' } }),
  unsubscribed: row(ANY, {
    events: [{ type: EventType.Unsubscribed }],
    counters: { unsubscribed: 'always' },
    suppress: SuppressionType.Unsubscribe,
    suppressionRequired: true,
    repeat: 'suppress-only',
  }),
  // Processed when accepted, as every accepted message; the status says it waits for its time.
  scheduled: row([NEW], {
    to: 'scheduled',
    events: [{ type: EventType.Processed }],
    counters: { processed: 'always' },
  }),
  // Nothing recorded: the message was already Processed; delivery records what happens next.
  released: row(['scheduled'], { to: 'queued', events: [], counters: {} }),
  'refused-at-release': row(['scheduled'], {
    to: 'dropped',
    events: [{ type: EventType.Dropped }],
    counters: { dropped: 'always' },
  }),
  // No counter: the stats have none for it (the Cancelled event and the status tell it).
  cancelled: row(['scheduled'], { to: 'cancelled', events: [{ type: EventType.Cancelled }], counters: {} }),
  // Never sent (or never recorded as sent): dropped, as a message refused before sending is.
  'job-failed': row(['queued', 'deferred', 'scheduled'], {
    to: 'dropped',
    events: [{ type: EventType.Dropped, reason: 'JOB_FAILED' }],
    counters: { dropped: 'always' },
  }),
};

/**
 * What `outcome` does to a message in `status`, or `null` when the outcome does not apply to a
 * message in that status (it has moved on: the outcome is then not recorded at all).
 */
export function lifecycleStep(status: LifecycleStatus, outcome: LifecycleOutcome): LifecycleStep | null {
  const { from, ...step } = TABLE[outcome];
  return from.includes(status) ? step : null;
}

/** The row of `outcome`: the statuses it is allowed from, and its step. */
export function lifecycleRow(outcome: LifecycleOutcome): LifecycleStep & { from: readonly LifecycleStatus[] } {
  return TABLE[outcome];
}

/** Whether a message in `status` can take a delivery attempt (the statuses every attempt's outcome applies to). */
export function canAttempt(status: LifecycleStatus): boolean {
  return lifecycleStep(status, 'delivered') !== null;
}

/** What a delivery attempt ended in, as the transport classified it (src/bounce/classify.ts). */
export interface AttemptResult {
  kind: 'delivered' | 'soft' | 'hard' | 'dropped';
  /** A soft bounce for policy or rate (4.7.x): ends `smtp_dropped` rather than `hard_bounced` when retries run out. */
  policy?: boolean;
}

/** The outcome of an attempt, given whether it was the last one the retry schedule allows. */
export function attemptOutcome(result: AttemptResult, lastAttempt: boolean): LifecycleOutcome {
  switch (result.kind) {
    case 'delivered':
      return 'delivered';
    case 'hard':
      return 'hard-bounced';
    case 'dropped':
      return 'smtp-dropped';
    case 'soft':
      if (!lastAttempt) return 'soft-bounced';
      return result.policy ? 'policy-retries-exhausted' : 'retries-exhausted';
  }
}

/** Facts about the message that the counting rules read. */
export interface CountFacts {
  /** The message had made no delivery attempt before this one. */
  firstAttempt: boolean;
  /** The message had no earlier event of the step's first type. */
  firstEvent: boolean;
}

/** The counters `step` adds, given `facts` (only the counters that apply, each 1). */
export function stepCounters(
  step: Pick<LifecycleStep, 'counters'>,
  facts: CountFacts,
): Partial<Record<StoredCounter, number>> {
  const counters: Partial<Record<StoredCounter, number>> = {};
  for (const [name, rule] of Object.entries(step.counters) as [StoredCounter, CountRule][]) {
    if (
      rule === 'always' ||
      (rule === 'first-attempt' && facts.firstAttempt) ||
      (rule === 'first-event' && facts.firstEvent)
    )
      counters[name] = 1;
  }
  return counters;
}
