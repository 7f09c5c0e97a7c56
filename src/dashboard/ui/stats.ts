/**
 * The overview's reading of the statistics, without a DOM: every counter of the daily record with
 * its label, where the processed mail went (final outcomes plus what is still in flight, so the
 * figures add up to processed), the spec's derived rates, the periods offered and the requests a
 * period needs. Unit-tested in test/unit/dashboard-stats.test.ts.
 */
import { utcDay } from './format.js';

/** The counters of one day (or of a range, as `/aggregate` answers them), as `/stat` answers them. */
export interface StatCounters {
  processed: number;
  sent: number;
  dropped: number;
  smtpDropped: number;
  delivered: number;
  softBounced: number;
  hardBounced: number;
  opened: number;
  clicked: number;
  unsubscribed: number;
  spam: number;
}

/** A counter's field name. */
export type CounterKey = keyof StatCounters;

/** One day of a `/stat` answer. */
export interface DayStat {
  date: string;
  stat: StatCounters;
}

/** A counter of the daily record: its field, its label, and whether the chart shows it at first. */
export interface CounterInfo {
  key: CounterKey;
  label: string;
  /** What it counts, in a sentence (the figures' tables show it). */
  meaning: string;
  charted: boolean;
}

/** Every counter of the daily record (docs/statistics.md), in the spec's order. */
export const COUNTERS: readonly CounterInfo[] = [
  { key: 'processed', label: 'Processed', meaning: 'accepted for sending', charted: true },
  { key: 'sent', label: 'Sent', meaning: 'processed − dropped − SMTP-dropped', charted: false },
  { key: 'dropped', label: 'Dropped', meaning: 'not sent: suppressed, invalid or unverified sender', charted: true },
  {
    key: 'smtpDropped',
    label: 'SMTP-dropped',
    meaning: 'refused by the receiving server for policy or rate',
    charted: false,
  },
  { key: 'delivered', label: 'Delivered', meaning: 'accepted by the receiving server', charted: true },
  {
    key: 'softBounced',
    label: 'Soft-bounced',
    meaning: 'deferred at least once and retried (once per message, whatever came next)',
    charted: true,
  },
  { key: 'hardBounced', label: 'Hard-bounced', meaning: 'refused for good', charted: true },
  { key: 'opened', label: 'Opened', meaning: 'messages opened at least once', charted: true },
  { key: 'clicked', label: 'Clicked', meaning: 'messages with at least one click', charted: true },
  { key: 'unsubscribed', label: 'Unsubscribed', meaning: 'recipients who unsubscribed', charted: false },
  { key: 'spam', label: 'Spam', meaning: 'spam complaints', charted: false },
];

/** A counter of a record, 0 when the record lacks it. */
export const counterOf = (stat: Partial<StatCounters>, key: CounterKey): number => Number(stat[key] ?? 0) || 0;

/** One part of the processed mail: a final outcome, or what is still in flight. */
export interface OutcomePart {
  key: 'delivered' | 'dropped' | 'smtpDropped' | 'hardBounced' | 'inFlight';
  label: string;
  count: number;
}

/**
 * Where the processed mail went: the final outcomes and, for the rest, "in flight" (queued, or
 * soft-bounced and waiting for its retry). A soft bounce is not an outcome: the message is retried,
 * and ends delivered, hard-bounced or SMTP-dropped. Counters are kept on the day each event
 * happened, so a day's outcomes may include mail processed the day before: in flight never goes
 * below 0, and `carriedOver` says by how much the outcomes exceed the day's processed mail.
 */
export function outcomeParts(stat: Partial<StatCounters>): { parts: OutcomePart[]; carriedOver: number } {
  const finals: OutcomePart[] = [
    { key: 'delivered', label: 'Delivered', count: counterOf(stat, 'delivered') },
    { key: 'dropped', label: 'Dropped before sending', count: counterOf(stat, 'dropped') },
    { key: 'smtpDropped', label: 'SMTP-dropped by the receiving server', count: counterOf(stat, 'smtpDropped') },
    { key: 'hardBounced', label: 'Hard-bounced', count: counterOf(stat, 'hardBounced') },
  ];
  const rest = counterOf(stat, 'processed') - finals.reduce((sum, part) => sum + part.count, 0);
  return {
    parts: [
      ...finals,
      { key: 'inFlight', label: 'In flight: queued, or soft-bounced and in retry', count: Math.max(0, rest) },
    ],
    carriedOver: Math.max(0, -rest),
  };
}

/** A derived rate: its name, how it is computed, and its value (`null` when it divides by 0). */
export interface Rate {
  label: string;
  formula: string;
  value: number | null;
}

const ratio = (part: number, whole: number): number | null => (whole > 0 ? part / whole : null);

/** The spec's derived rates ("calculated by the caller"), of one record. */
export function derivedRates(stat: Partial<StatCounters>): Rate[] {
  const n = (key: CounterKey) => counterOf(stat, key);
  return [
    { label: 'Delivery rate', formula: 'delivered ÷ processed', value: ratio(n('delivered'), n('processed')) },
    { label: 'Open rate', formula: 'opened ÷ delivered', value: ratio(n('opened'), n('delivered')) },
    { label: 'Click rate', formula: 'clicked ÷ delivered', value: ratio(n('clicked'), n('delivered')) },
    {
      label: 'Bounce rate',
      formula: '(hard-bounced + soft-bounced) ÷ processed',
      value: ratio(n('hardBounced') + n('softBounced'), n('processed')),
    },
  ];
}

/** The periods the overview offers, in days ending today (UTC). */
export const PERIODS: readonly { days: number; label: string }[] = [
  { days: 1, label: 'Today (UTC)' },
  { days: 7, label: 'Last 7 days' },
  { days: 30, label: 'Last 30 days' },
  { days: 90, label: 'Last 90 days' },
  { days: 365, label: 'Last 365 days' },
];

/** The longest range one daily `/stat` request may ask for (docs/statistics.md). */
export const MAX_DAILY_RANGE = 31;

/**
 * The daily requests of the `days` UTC days ending with the day of `nowMs`: consecutive ranges of
 * at most {@link MAX_DAILY_RANGE} days, oldest first, so a year is 12 requests.
 */
export function dailyRanges(nowMs: number, days: number): { from: string; to: string }[] {
  const ranges: { from: string; to: string }[] = [];
  for (let start = days - 1; start >= 0; start -= MAX_DAILY_RANGE) {
    const end = Math.max(0, start - MAX_DAILY_RANGE + 1);
    ranges.push({ from: utcDay(nowMs - start * 86_400_000), to: utcDay(nowMs - end * 86_400_000) });
  }
  return ranges;
}

/** A count in the viewer's locale (`1,234`, `1.234`, `1 234`). */
export const localCount = (n: number): string => new Intl.NumberFormat().format(n);

/** A rate in the viewer's locale as a percentage with at most one decimal; `—` when there is none. */
export const localRate = (value: number | null): string =>
  value === null ? '—' : new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 }).format(value);
