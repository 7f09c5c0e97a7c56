import { z } from 'zod';
import { dayNumber } from '../model/dates.js';
import { listQuerySchema } from '../model/paging.js';
import type { EpochNs } from '../model/time.js';
import type { SuppressionFilter } from '../store/suppression-store.js';
import { suppressionTypeOf, type SuppressionTypeName } from './suppressions.js';

const NS_PER_DAY = 86_400_000_000_000n;
/** Timestamps are signed 64-bit in storage: 1677-09-21 to 2262-04-11 in nanoseconds. */
const MIN_NS = -(2n ** 63n);
const MAX_NS = 2n ** 63n - 1n;

/**
 * Nanoseconds of 00:00 UTC of a `YYYY-MM-DD` day, or `null` when it is no real calendar day. Days
 * outside what a 64-bit timestamp holds (`to=9999-12-31`) are clamped to its ends, which select
 * the same rows and, bound as query parameters, are no database error.
 */
function dayStartNs(date: string): EpochNs | null {
  const day = dayNumber(date);
  if (day === null) return null;
  const ns = BigInt(day) * NS_PER_DAY;
  return ns < MIN_NS ? MIN_NS : ns > MAX_NS ? MAX_NS : ns;
}

const dateSchema = z.string().transform((value, check) => {
  const ns = dayStartNs(value);
  if (ns === null) {
    check.addIssue({ code: 'custom', message: 'must be a date YYYY-MM-DD' });
    return z.NEVER;
  }
  return ns;
});

const typeNames = [
  'hardBounce',
  'manual',
  'spamComplaint',
  'unsubscribe',
] as const satisfies readonly SuppressionTypeName[];

/**
 * The query of `GET /subaccount/suppression`: `from` and `to` (UTC days, both inclusive, both
 * optional, `from` not after `to`), `type`, `search`, `limit`, `offset`; parsed into a
 * {@link SuppressionFilter}.
 */
export const suppressionListQuerySchema = listQuerySchema
  .extend({
    from: dateSchema.optional(),
    to: dateSchema.optional(),
    type: z.enum(typeNames).optional(),
  })
  .superRefine((query, check) => {
    if (query.from !== undefined && query.to !== undefined && query.from > query.to) {
      check.addIssue({ code: 'custom', path: ['from'], message: 'must not be after to' });
    }
  })
  .transform((query): SuppressionFilter => ({
    limit: query.limit,
    offset: query.offset,
    search: query.search,
    type: query.type === undefined ? undefined : suppressionTypeOf(query.type),
    createdFrom: query.from,
    // `to` is inclusive: everything before the start of the next day.
    createdBefore: query.to === undefined ? undefined : query.to > MAX_NS - NS_PER_DAY ? MAX_NS : query.to + NS_PER_DAY,
  }));
