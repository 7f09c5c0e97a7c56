/**
 * The overview's statistics without a browser (src/dashboard/ui/stats.ts, chart-scale.ts): where
 * the processed mail went adds up to processed, the spec's rates, the daily requests of a period,
 * and the chart's ticks, labels, bars and looks.
 */
import { describe, expect, it } from 'vitest';
import { barSlots, labelledDays, seriesLook, valueTicks } from '../../src/dashboard/ui/chart-scale.js';
import { COUNTERS, dailyRanges, derivedRates, outcomeParts, type StatCounters } from '../../src/dashboard/ui/stats.js';

const record = (counts: Partial<StatCounters>): StatCounters => ({
  processed: 0,
  sent: 0,
  dropped: 0,
  smtpDropped: 0,
  delivered: 0,
  softBounced: 0,
  hardBounced: 0,
  opened: 0,
  clicked: 0,
  unsubscribed: 0,
  spam: 0,
  ...counts,
});

describe('the overview’s statistics', () => {
  it('lists every counter of the daily record, in the spec’s order', () => {
    expect(COUNTERS.map((c) => c.key)).toEqual([
      'processed',
      'sent',
      'dropped',
      'smtpDropped',
      'delivered',
      'softBounced',
      'hardBounced',
      'opened',
      'clicked',
      'unsubscribed',
      'spam',
    ]);
  });

  it('splits processed into final outcomes and what is in flight (a soft bounce in retry is not an outcome)', () => {
    // 9 processed: 4 delivered (one after a soft bounce), 2 dropped, 1 hard bounce, 2 still in retry.
    const { parts, carriedOver } = outcomeParts(
      record({ processed: 9, dropped: 2, delivered: 4, hardBounced: 1, softBounced: 3, opened: 2 }),
    );
    expect(Object.fromEntries(parts.map((p) => [p.key, p.count]))).toEqual({
      delivered: 4,
      dropped: 2,
      smtpDropped: 0,
      hardBounced: 1,
      inFlight: 2,
    });
    expect(parts.reduce((sum, p) => sum + p.count, 0)).toBe(9);
    expect(carriedOver).toBe(0);
    // A day whose outcomes include yesterday's mail: nothing negative, and the excess said.
    expect(outcomeParts(record({ processed: 1, delivered: 3 }))).toMatchObject({ carriedOver: 2 });
    expect(outcomeParts(record({ processed: 1, delivered: 3 })).parts.at(-1)!.count).toBe(0);
  });

  it('derives the spec’s rates, none when it would divide by 0', () => {
    const rates = derivedRates(
      record({ processed: 10, delivered: 8, opened: 4, clicked: 2, hardBounced: 1, softBounced: 1 }),
    );
    expect(rates.map((r) => [r.label, r.value])).toEqual([
      ['Delivery rate', 0.8],
      ['Open rate', 0.5],
      ['Click rate', 0.25],
      ['Bounce rate', 0.2],
    ]);
    expect(derivedRates(record({})).map((r) => r.value)).toEqual([null, null, null, null]);
  });

  it('asks for a year in ranges of at most 31 days, oldest first, ending today', () => {
    const now = Date.UTC(2026, 11, 31, 23);
    expect(dailyRanges(now, 1)).toEqual([{ from: '2026-12-31', to: '2026-12-31' }]);
    const year = dailyRanges(now, 365);
    expect(year).toHaveLength(12);
    expect(year[0]!.from).toBe('2026-01-01');
    expect(year.at(-1)!.to).toBe('2026-12-31');
    const length = (r: { from: string; to: string }) => (Date.parse(r.to) - Date.parse(r.from)) / 86_400_000 + 1;
    expect(year.reduce((sum, r) => sum + length(r), 0)).toBe(365);
    expect(Math.max(...year.map(length))).toBe(31);
    for (let i = 1; i < year.length; i++)
      expect(Date.parse(year[i]!.from) - Date.parse(year[i - 1]!.to)).toBe(86_400_000);
  });
});

describe('the chart’s geometry', () => {
  it('rounds the value axis to whole steps of 1, 2 or 5 times a power of ten', () => {
    expect(valueTicks(0)).toEqual([0, 1]);
    expect(valueTicks(1)).toEqual([0, 1]);
    expect(valueTicks(3)).toEqual([0, 1, 2, 3]);
    expect(valueTicks(9)).toEqual([0, 5, 10]);
    expect(valueTicks(1234)).toEqual([0, 500, 1000, 1500]);
  });

  it('labels at most so many days, the last one always', () => {
    expect(labelledDays(1, 8)).toEqual([0]);
    expect(labelledDays(7, 8)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const year = labelledDays(365, 8);
    expect(year.length).toBeLessThanOrEqual(8);
    expect(year.at(-1)).toBe(364);
  });

  it('puts a day’s bars side by side inside its slot, and gives every series its own look', () => {
    const bars = barSlots(100, 1, 0, 4);
    expect(bars.map((b) => b.width)).toEqual([20, 20, 20, 20]);
    expect(bars.map((b) => b.x)).toEqual([10, 30, 50, 70]);
    const looks = COUNTERS.map((_, i) => seriesLook(i));
    for (const part of ['colour', 'pattern', 'dash', 'marker'] as const)
      expect(new Set(looks.map((l) => l[part])).size, part).toBe(COUNTERS.length);
  });
});
