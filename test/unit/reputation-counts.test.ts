import { describe, expect, it } from 'vitest';
import { hourOfMs } from 'mailplane';
import { reputationIncrements, type ReputationEvent } from '../../src/lifecycle/reputation-counts.js';

const AT = Date.UTC(2026, 4, 1, 12, 30);
const event = (recipient: string, counters: ReputationEvent['counters'], extra: Partial<ReputationEvent> = {}) => ({
  accountId: 1,
  subAccountId: 2,
  domainId: 3,
  recipient,
  ipId: null,
  atMs: AT,
  counters,
  ...extra,
});

describe('reputationIncrements', () => {
  it('sums a 1,000-recipient send into one increment per bucket, not one per recipient', () => {
    const events = Array.from({ length: 1000 }, (_, i) =>
      event(
        i % 10 === 0 ? `u${i}@Gmail.com` : `u${i}@example.test`,
        i % 100 === 0 ? { processed: 1, dropped: 1 } : { processed: 1 },
      ),
    );
    const increments = reputationIncrements(events);
    expect(increments).toHaveLength(2);
    const bucket = { accountId: 1, subAccountId: 2, hour: hourOfMs(AT), domainId: 3, ipId: 0 };
    expect(increments).toContainEqual({ ...bucket, provider: 0, counters: { processed: 100, dropped: 10 } });
    expect(increments).toContainEqual({ ...bucket, provider: 11, counters: { processed: 900 } });
  });

  it('maps the daily counters that have a reputation counter, adds sent for an ended attempt, and skips the rest', () => {
    const increments = reputationIncrements([
      event('a@yahoo.com', { hardBounced: 1 }, { ipId: 7, sent: true, domainId: null }),
      event('a@yahoo.com', { softBounced: 1 }, { ipId: 7, domainId: null }),
      event('a@yahoo.com', { clicked: 1, smtpDropped: 0 }, { ipId: 7, domainId: null }),
      event('a@yahoo.com', { spam: 1 }, { ipId: 8, atMs: AT + 3_600_000 }),
    ]);
    expect(increments).toEqual([
      {
        accountId: 1,
        subAccountId: 2,
        hour: hourOfMs(AT),
        domainId: 0,
        provider: 1,
        ipId: 7,
        counters: { hardBounced: 1, sent: 1, softBounced: 1 },
      },
      {
        accountId: 1,
        subAccountId: 2,
        hour: hourOfMs(AT) + 1,
        domainId: 3,
        provider: 1,
        ipId: 8,
        counters: { spam: 1 },
      },
    ]);
  });
});
