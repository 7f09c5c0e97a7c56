import { z } from 'zod';

/** A UTC calendar day, `YYYY-MM-DD`. */
export type Day = string;

const DAY_MS = 86_400_000;
const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since the UNIX epoch of a `YYYY-MM-DD` string, or `null` when it is not a real calendar day. */
export function dayNumber(day: string): number | null {
  const match = DAY_PATTERN.exec(day);
  if (!match) return null;
  const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  // Date.UTC rolls 2026-02-30 over to March: a round trip catches impossible dates.
  return new Date(ms).toISOString().slice(0, 10) === day ? ms / DAY_MS : null;
}

/** The UTC day of an epoch-milliseconds instant. */
export function dayOfMs(ms: number): Day {
  return new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

/** The day `n` days after day number `dayNum`. */
export function dayFromNumber(dayNum: number): Day {
  return new Date(dayNum * DAY_MS).toISOString().slice(0, 10);
}

/** Every day from `from` to `to`, both inclusive, in order. */
export function eachDay(from: Day, to: Day): Day[] {
  const start = dayNumber(from);
  const end = dayNumber(to);
  if (start === null || end === null) return [];
  return Array.from({ length: Math.max(0, end - start + 1) }, (_, i) => dayFromNumber(start + i));
}

/** zod schema of a `YYYY-MM-DD` query parameter that must be a real calendar day. */
export const daySchema = z.string().refine((v) => dayNumber(v) !== null, 'must be a date written YYYY-MM-DD');
