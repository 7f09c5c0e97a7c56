import { describe, expect, it } from 'vitest';
import { EventType, SuppressionType } from 'mailplane';
import {
  attemptOutcome,
  canAttempt,
  LIFECYCLE_OUTCOMES,
  LIFECYCLE_STATUSES,
  lifecycleStep,
  stepCounters,
  type LifecycleOutcome,
  type LifecycleStatus,
} from '../../src/lifecycle/table.js';

/**
 * The spec's state table written out independently of src/lifecycle/table.ts (docs/delivery.md,
 * "Outcomes"; docs/bounces.md, "What a report does"): for each outcome, the statuses it applies to
 * and what it does there. Every status x outcome pair is checked against it.
 */
const PENDING = ['queued', 'deferred'];
const EXISTING = ['queued', 'deferred', 'delivered', 'dropped', 'smtp_dropped', 'hard_bounced'];
const expected: Record<
  LifecycleOutcome,
  { from: string[]; to: string | null; events: unknown[]; suppress: number | null; retry: string | null }
> = {
  accepted: { from: ['new'], to: 'queued', events: [{ type: EventType.Processed }], suppress: null, retry: null },
  refused: {
    from: ['new'],
    to: 'dropped',
    events: [{ type: EventType.Processed }, { type: EventType.Dropped }],
    suppress: null,
    retry: null,
  },
  delivered: { from: PENDING, to: 'delivered', events: [{ type: EventType.Delivered }], suppress: null, retry: null },
  'soft-bounced': {
    from: PENDING,
    to: 'deferred',
    events: [{ type: EventType.SoftBounced }],
    suppress: null,
    retry: 'next-step',
  },
  'retries-exhausted': {
    from: PENDING,
    to: 'hard_bounced',
    events: [{ type: EventType.HardBounced, reason: 'RETRIES_EXHAUSTED' }],
    suppress: null,
    retry: null,
  },
  'policy-retries-exhausted': {
    from: PENDING,
    to: 'smtp_dropped',
    events: [{ type: EventType.Dropped, reason: 'SMTP_DROPPED' }],
    suppress: null,
    retry: null,
  },
  'hard-bounced': {
    from: PENDING,
    to: 'hard_bounced',
    events: [{ type: EventType.HardBounced }],
    suppress: SuppressionType.HardBounce,
    retry: null,
  },
  'smtp-dropped': {
    from: PENDING,
    to: 'smtp_dropped',
    events: [{ type: EventType.Dropped, reason: 'SMTP_DROPPED' }],
    suppress: null,
    retry: null,
  },
  'bounce-reported': {
    from: ['delivered', 'deferred'],
    to: 'hard_bounced',
    events: [{ type: EventType.HardBounced }],
    suppress: SuppressionType.HardBounce,
    retry: null,
  },
  complained: {
    from: EXISTING,
    to: null,
    events: [{ type: EventType.Spam }],
    suppress: SuppressionType.SpamComplaint,
    retry: null,
  },
  opened: { from: EXISTING, to: null, events: [{ type: EventType.Opened }], suppress: null, retry: null },
  clicked: { from: EXISTING, to: null, events: [{ type: EventType.Clicked }], suppress: null, retry: null },
  unsubscribed: {
    from: EXISTING,
    to: null,
    events: [{ type: EventType.Unsubscribed }],
    suppress: SuppressionType.Unsubscribe,
    retry: null,
  },
  // Scheduled sending (docs/sending.md): only a scheduled message is released, refused at its time or cancelled.
  scheduled: { from: ['new'], to: 'scheduled', events: [{ type: EventType.Processed }], suppress: null, retry: null },
  released: { from: ['scheduled'], to: 'queued', events: [], suppress: null, retry: null },
  'refused-at-release': {
    from: ['scheduled'],
    to: 'dropped',
    events: [{ type: EventType.Dropped }],
    suppress: null,
    retry: null,
  },
  cancelled: {
    from: ['scheduled'],
    to: 'cancelled',
    events: [{ type: EventType.Cancelled }],
    suppress: null,
    retry: null,
  },
  // A delivery or release job that failed for good (docs/jobs.md): what it still held is dropped.
  'job-failed': {
    from: [...PENDING, 'scheduled'],
    to: 'dropped',
    events: [{ type: EventType.Dropped, reason: 'JOB_FAILED' }],
    suppress: null,
    retry: null,
  },
};

/** Counters added, as [first attempt / first event, later attempt / repeated event]. */
const counted: Record<LifecycleOutcome, [Record<string, number>, Record<string, number>]> = {
  accepted: [{ processed: 1 }, { processed: 1 }],
  refused: [
    { processed: 1, dropped: 1 },
    { processed: 1, dropped: 1 },
  ],
  delivered: [{ delivered: 1 }, { delivered: 1 }],
  // softBounced counts messages: only at the first soft bounce, also when the first attempt is the last.
  'soft-bounced': [{ softBounced: 1 }, {}],
  'retries-exhausted': [{ hardBounced: 1, softBounced: 1 }, { hardBounced: 1 }],
  'policy-retries-exhausted': [{ smtpDropped: 1, softBounced: 1 }, { smtpDropped: 1 }],
  'hard-bounced': [{ hardBounced: 1 }, { hardBounced: 1 }],
  'smtp-dropped': [{ smtpDropped: 1 }, { smtpDropped: 1 }],
  'bounce-reported': [{ hardBounced: 1 }, { hardBounced: 1 }],
  complained: [{ spam: 1 }, { spam: 1 }],
  // opened and clicked count messages: only the first open or click of each.
  opened: [{ opened: 1 }, {}],
  clicked: [{ clicked: 1 }, {}],
  unsubscribed: [{ unsubscribed: 1 }, { unsubscribed: 1 }],
  scheduled: [{ processed: 1 }, { processed: 1 }],
  released: [{}, {}],
  'refused-at-release': [{ dropped: 1 }, { dropped: 1 }],
  cancelled: [{}, {}],
  'job-failed': [{ dropped: 1 }, { dropped: 1 }],
};

describe('the lifecycle table', () => {
  const pairs = LIFECYCLE_STATUSES.flatMap((status) =>
    LIFECYCLE_OUTCOMES.map((outcome): [LifecycleStatus, LifecycleOutcome] => [status, outcome]),
  );

  it('covers every status and outcome', () => {
    expect([...LIFECYCLE_STATUSES].sort()).toEqual([
      'cancelled',
      'deferred',
      'delivered',
      'dropped',
      'hard_bounced',
      'new',
      'queued',
      'scheduled',
      'smtp_dropped',
    ]);
    expect([...LIFECYCLE_OUTCOMES].sort()).toEqual(Object.keys(expected).sort());
    expect(pairs).toHaveLength(9 * 18);
  });

  it.each(pairs)('%s x %s', (status, outcome) => {
    const step = lifecycleStep(status, outcome);
    const want = expected[outcome];
    if (!want.from.includes(status)) {
      expect(step).toBeNull();
      return;
    }
    expect(step).toMatchObject({ to: want.to, suppress: want.suppress, retry: want.retry });
    expect(step!.events).toEqual(want.events);
    const [first, later] = counted[outcome];
    expect(stepCounters(step!, { firstAttempt: true, firstEvent: true })).toEqual(first);
    expect(stepCounters(step!, { firstAttempt: false, firstEvent: false })).toEqual(later);
  });

  it('guards delivery outcomes by the state the attempt found, and a bounce report by every state it may end', () => {
    for (const outcome of [
      'delivered',
      'soft-bounced',
      'retries-exhausted',
      'policy-retries-exhausted',
      'hard-bounced',
      'smtp-dropped',
    ] as const) {
      expect(lifecycleStep('queued', outcome)?.guard).toBe('found');
    }
    expect(lifecycleStep('delivered', 'bounce-reported')?.guard).toBe('allowed');
  });

  it('records a complaint once, an unsubscribe once but suppresses again, and every open and click', () => {
    expect(lifecycleStep('delivered', 'complained')).toMatchObject({ repeat: 'ignore', suppressionRequired: false });
    expect(lifecycleStep('delivered', 'unsubscribed')).toMatchObject({
      repeat: 'suppress-only',
      suppressionRequired: true,
    });
    expect(lifecycleStep('delivered', 'opened')?.repeat).toBeNull();
    expect(lifecycleStep('delivered', 'clicked')?.repeat).toBeNull();
  });

  it('lets only queued and deferred messages take a delivery attempt', () => {
    expect(LIFECYCLE_STATUSES.filter(canAttempt)).toEqual(['queued', 'deferred']);
  });

  it('names the outcome of each delivery attempt from its classification and whether retries are left', () => {
    expect(attemptOutcome({ kind: 'delivered' }, false)).toBe('delivered');
    expect(attemptOutcome({ kind: 'delivered' }, true)).toBe('delivered');
    expect(attemptOutcome({ kind: 'hard' }, false)).toBe('hard-bounced');
    expect(attemptOutcome({ kind: 'dropped' }, false)).toBe('smtp-dropped');
    expect(attemptOutcome({ kind: 'soft' }, false)).toBe('soft-bounced');
    expect(attemptOutcome({ kind: 'soft', policy: true }, false)).toBe('soft-bounced');
    expect(attemptOutcome({ kind: 'soft' }, true)).toBe('retries-exhausted');
    expect(attemptOutcome({ kind: 'soft', policy: true }, true)).toBe('policy-retries-exhausted');
  });
});
