/**
 * Scheduled sending (docs/sending.md, "Scheduled sending"): the `sendAt` field of a send request,
 * and the window it must fall in. A scheduled send is accepted at once (its messages are stored in
 * the `scheduled` status) and a durable `deliver-scheduled` job due at `sendAt` releases it; the
 * release (src/scheduling/scheduled-jobs.ts) makes the time-dependent checks again.
 */
import { z } from 'zod';
import type { Clock } from '../model/time.js';
import { ValidationError } from '../errors.js';

/** How far ahead a send may be scheduled: 72 hours. */
export const MAX_SCHEDULE_AHEAD_MS = 72 * 3_600_000;
/**
 * How far in the past a `sendAt` may be and still be taken (sent at once): a client whose clock is
 * a little ahead of ours, or a request that spent a while in transit, is not refused for it.
 */
export const SEND_AT_SKEW_MS = 60_000;

const NS_PER_MS = 1_000_000n;
/** RFC 3339 date-time: a full date, a time with optional fraction (up to ns), and a zone. */
const RFC3339 = /^(\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/** Epoch nanoseconds of an RFC 3339 date-time, or `null` when it is not one (or names no real instant). */
function rfc3339Ns(value: string): bigint | null {
  const match = RFC3339.exec(value);
  if (!match) return null;
  const [, rawHead, fraction = '', rawZone] = match;
  const head = rawHead!.toUpperCase();
  const zone = rawZone!.toUpperCase();
  // Date.parse rolls 2026-02-30 into March: the fields read as UTC must come back unchanged.
  const asUtc = Date.parse(`${head}Z`);
  if (Number.isNaN(asUtc) || new Date(asUtc).toISOString().slice(0, 19) !== head) return null;
  const ms = Date.parse(`${head}${zone}`);
  if (Number.isNaN(ms) || ms < 0) return null;
  return BigInt(ms) * NS_PER_MS + BigInt(fraction.padEnd(9, '0'));
}

/**
 * `sendAt`: integer UNIX epoch nanoseconds (a JSON number, or a string of digits for an exact
 * value), or an RFC 3339 date-time. Read as epoch nanoseconds in a decimal string (what a send's
 * stored content keeps). A JSON number above 2^53 is read as a float by every JSON parser, so it
 * is exact to about a quarter of a microsecond; a schedule needs no more.
 */
// Not z.number().int(): zod limits it to safe integers, and epoch nanoseconds are far above 2^53.
const wholeNumber = z.number().nonnegative().refine(Number.isInteger, 'must be a whole number of nanoseconds');

export const sendAtSchema = z.union([wholeNumber, z.string().max(64)]).transform((value, check) => {
  if (typeof value === 'number') return BigInt(value).toString();
  if (/^\d{1,19}$/.test(value)) return BigInt(value).toString();
  const ns = rfc3339Ns(value);
  if (ns === null) {
    check.addIssue({
      code: 'custom',
      message: 'must be UNIX epoch nanoseconds or an RFC 3339 date-time such as 2026-05-01T12:00:00Z',
    });
    return z.NEVER;
  }
  return ns.toString();
});

/** When a scheduled send is due: epoch nanoseconds (decimal string, as stored) and epoch milliseconds. */
export interface SendSchedule {
  sendAt: string;
  sendAtMs: number;
}

/**
 * Checks `sendAt` (epoch ns, decimal string) against the window: not more than
 * {@link SEND_AT_SKEW_MS} in the past (`SEND_AT_IN_PAST`) and not more than
 * {@link MAX_SCHEDULE_AHEAD_MS} ahead (`SEND_AT_TOO_FAR`), both 422 before anything is stored.
 */
export function sendSchedule(clock: Clock, sendAt: string): SendSchedule {
  const ns = BigInt(sendAt);
  const nowMs = clock.now();
  const sendAtMs = Number(ns / NS_PER_MS);
  if (sendAtMs < nowMs - SEND_AT_SKEW_MS) {
    throw new ValidationError(
      `sendAt is in the past (more than ${SEND_AT_SKEW_MS / 1000} seconds before now)`,
      [{ path: 'sendAt', message: 'must not be in the past' }],
      'SEND_AT_IN_PAST',
    );
  }
  if (sendAtMs > nowMs + MAX_SCHEDULE_AHEAD_MS) {
    throw new ValidationError(
      `sendAt is more than ${MAX_SCHEDULE_AHEAD_MS / 3_600_000} hours ahead`,
      [{ path: 'sendAt', message: 'must be at most 72 hours ahead' }],
      'SEND_AT_TOO_FAR',
    );
  }
  return { sendAt, sendAtMs };
}
