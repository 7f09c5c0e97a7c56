import { z } from 'zod';
import { ValidationError } from '../errors.js';
import { dayNumber, daySchema, eachDay, type Day } from '../model/dates.js';
import { plainTextSchema } from '../model/text.js';
import { STORED_COUNTERS, type StatsScope, type StatsStore } from '../store/stats-store.js';
import { withSent, zeroCounters, type StatCounters } from './counters.js';

/** Longest daily range, both ends inclusive (the spec's 31 days). */
export const MAX_DAILY_DAYS = 31;
/**
 * Longest aggregate range, both ends inclusive. The spec's operation text says 366 days and its
 * parameter text 60; 366 is the one that lets a caller ask for a whole (leap) year, and the cost
 * of an aggregate grows only with the number of days, so the larger limit is safe.
 */
export const MAX_AGGREGATE_DAYS = 366;

/** `from` and `to` of every statistics endpoint. */
export const rangeQuerySchema = z.strictObject({ from: daySchema, to: daySchema });
/** `from`, `to` and `group` of the per-group endpoints. */
export const groupRangeQuerySchema = rangeQuerySchema.extend({ group: plainTextSchema(100).pipe(z.string().min(1)) });

/** The wire shape of the counters ({@link aggregateStats}): the reference's `AggregateStat`. */
export const statCountersWireSchema = z.object({
  ...(Object.fromEntries(STORED_COUNTERS.map((name) => [name, z.int().min(0)])) as Record<
    (typeof STORED_COUNTERS)[number],
    z.ZodInt
  >),
  sent: z.int().min(0),
});

/** The wire shape of one day of {@link dailyStats}: the reference's `Stat`. */
export const dailyStatWireSchema = z.object({
  date: z.string().meta({ format: 'date' }),
  stat: statCountersWireSchema,
});

/**
 * Checks a validated range: `from` not after `to` (a one-day range is allowed) and at most
 * `maxDays` days, both ends included. Throws 422 otherwise.
 */
export function checkRange(from: Day, to: Day, maxDays: number): void {
  const days = dayNumber(to)! - dayNumber(from)! + 1;
  if (days < 1)
    throw new ValidationError(
      '`from` must not be after `to`',
      [{ path: 'from', message: 'must not be after to' }],
      'INVALID_DATE_RANGE',
    );
  if (days > maxDays) {
    throw new ValidationError(
      `the range covers ${days} days; at most ${maxDays} are allowed`,
      [{ path: 'to', message: `at most ${maxDays} days after from` }],
      'INVALID_DATE_RANGE',
    );
  }
}

/** One day of the daily statistics, as the reference's `Stat`. */
export interface DailyStat {
  date: Day;
  stat: StatCounters;
}

/** Daily records for every day of [from, to], days without traffic included as zeros. */
export async function dailyStats(stats: StatsStore, scope: StatsScope, from: Day, to: Day): Promise<DailyStat[]> {
  checkRange(from, to, MAX_DAILY_DAYS);
  const rows = new Map((await stats.daily(scope, from, to)).map((row) => [row.day, row.counters]));
  return eachDay(from, to).map((date) => ({ date, stat: withSent(rows.get(date) ?? zeroCounters()) }));
}

/** The sums over [from, to], as the reference's flat `AggregateStat`. */
export async function aggregateStats(stats: StatsStore, scope: StatsScope, from: Day, to: Day): Promise<StatCounters> {
  checkRange(from, to, MAX_AGGREGATE_DAYS);
  return withSent(await stats.total(scope, from, to));
}

/** Most group names {@link statGroups} answers. */
export const MAX_STAT_GROUPS = 1000;

/**
 * The group names with mail counted in [from, to] (at most {@link MAX_STAT_GROUPS}, ascending):
 * mailplane's addition, so a client can offer the groups to compare instead of asking for names.
 */
export async function statGroups(
  stats: StatsStore,
  scope: Omit<StatsScope, 'group'>,
  from: Day,
  to: Day,
): Promise<string[]> {
  checkRange(from, to, MAX_AGGREGATE_DAYS);
  return stats.groups(scope, from, to, MAX_STAT_GROUPS);
}
