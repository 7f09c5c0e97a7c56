/**
 * What one suppression entry may be, however it arrives (the JSON body, a CSV row): an address or
 * `*@domain`, a type name, an optional expiry. One rule for both, so the import and the create
 * endpoint refuse the same things in the same words.
 */
import { z } from 'zod';
import { emailAddressProblem } from '../model/email-address.js';
import { msToNs, type EpochNs } from '../model/time.js';

/** An ISO 8601 date (`2026-01-31`, midnight UTC) or date-time with its offset (`2026-01-31T12:00:00Z`). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/**
 * Why `value` cannot be suppressed, or `null`: an address as every entry point takes it
 * (src/model/email-address.ts), or `*@` a domain, which suppresses every address of that domain.
 */
export function suppressionEntryProblem(value: string): string | null {
  if (!value.startsWith('*@')) return emailAddressProblem(value);
  // The domain of a wildcard obeys the rule of an address's domain.
  return emailAddressProblem(`x${value.slice(1)}`) === null ? null : 'the domain after *@ is not a valid host name';
}

/**
 * The instant of an `expires` value (nanoseconds), or a problem in plain words: an ISO 8601 date or
 * date-time with an offset, later than `nowMs`.
 */
export function parseExpiry(value: string, nowMs: number): { ns: EpochNs } | { problem: string } {
  const ms = ISO_TIME.test(value) ? Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value) : NaN;
  if (!Number.isFinite(ms))
    return { problem: 'must be an ISO 8601 date or date-time with its offset (2026-01-31T12:00:00Z)' };
  if (ms <= nowMs) return { problem: 'must be in the future' };
  return { ns: msToNs(ms) };
}

/** An expiry as the CSV export writes it (and the import reads it back): ISO 8601 UTC, millisecond precision. */
export const expiryText = (expires: EpochNs | null): string =>
  expires === null ? '' : new Date(Number(expires / 1_000_000n)).toISOString();

/** zod schema of one address or `*@domain` of the create body. */
export const suppressionEntrySchema = z.string().superRefine((value, check) => {
  const problem = suppressionEntryProblem(value);
  if (problem !== null) check.addIssue({ code: 'custom', message: problem });
});

/** zod schema of an `expires` of the create body: an ISO 8601 text, checked against the clock by the service. */
export const expiryTextSchema = z
  .string()
  .regex(ISO_TIME, 'must be an ISO 8601 date or date-time with its offset (2026-01-31T12:00:00Z)');
