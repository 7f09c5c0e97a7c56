import { z } from 'zod';
import { ValidationError } from '../errors.js';
import { dayNumber } from '../model/dates.js';
import { MAX_LIST_LIMIT, queryInt } from '../model/paging.js';
import { plainTextSchema } from '../model/text.js';
import type { ActivityCursor, ActivityFilter, EventType, MessageStatus } from '../store/index.js';

const DAY_NS = 86_400_000_000_000n;
/** Timestamps are 64-bit columns: a later bound (year 2262 on) means "no bound" and is clamped. */
const MAX_NS = 2n ** 63n - 1n;
const clamp = (ns: bigint) => (ns > MAX_NS ? MAX_NS : ns);
const STATUSES = [
  'queued',
  'deferred',
  'delivered',
  'dropped',
  'smtp_dropped',
  'hard_bounced',
  'scheduled',
  'cancelled',
] as const satisfies readonly MessageStatus[];

/**
 * A bound of the time range: nanoseconds since the epoch, or a UTC day `YYYY-MM-DD` (its first
 * instant; for `to`, the first instant of the next day, so the day is included). The received
 * messages' lists (inbound-list.ts) take the same.
 */
export const timeBound = (endOfDay: boolean) =>
  z.string().transform((value, ctx) => {
    if (/^[0-9]{1,20}$/.test(value)) return clamp(BigInt(value));
    const day = dayNumber(value);
    if (day !== null) return clamp(BigInt(day + (endOfDay ? 1 : 0)) * DAY_NS);
    ctx.addIssue({ code: 'custom', message: 'must be nanoseconds since the epoch or a date written YYYY-MM-DD' });
    return z.NEVER;
  });

/** A text filter: plain text, not empty, at most `max` characters. */
export const filterText = (max: number) => plainTextSchema(max).pipe(z.string().min(1));

/** The filters of every activity list and export (docs/activity.md). */
const filterShape = {
  recipient: filterText(320).optional(),
  sender: filterText(320).optional(),
  status: z.enum(STATUSES).optional(),
  group: filterText(100).optional(),
  ippool: filterText(100).optional(),
  subAccountId: queryInt(1).optional(),
  /** One message's id (a UUID, any case). */
  messageId: z
    .string()
    .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'must be a message id (a UUID)')
    .optional(),
  from: timeBound(false).optional(),
  to: timeBound(true).optional(),
  /** Events only: comma-separated event type numbers. */
  type: z
    .string()
    .regex(/^[0-9](,[0-9])*$/, 'must be event type numbers 0 to 9, comma-separated')
    .transform((v) => v.split(',').map(Number) as EventType[])
    .optional(),
};

/** The query parameters of the activity lists: the filters, `cursor` and `limit`. */
export const activityQuerySchema = z.strictObject({
  ...filterShape,
  cursor: z.string().max(200).optional(),
  limit: queryInt(1)
    .optional()
    .transform((v) => Math.min(v ?? 100, MAX_LIST_LIMIT)),
});

/** The query parameters of the exports: the filters and `format` (default `ndjson`). */
export const exportQuerySchema = z.strictObject({
  ...filterShape,
  format: z
    .enum(['ndjson', 'csv'])
    .optional()
    .transform((v) => v ?? 'ndjson'),
});

/** The filters of a validated list or export query. */
export type ActivityFilterQuery = z.infer<z.ZodObject<typeof filterShape>>;
/** {@link activityQuerySchema} after validation. */
export type ActivityQuery = z.infer<typeof activityQuerySchema>;
/** {@link exportQuerySchema} after validation. */
export type ExportQuery = z.infer<typeof exportQuerySchema>;

/** The opaque cursor of the page after the row keyed `key`. */
export function encodeCursor(key: ActivityCursor): string {
  return Buffer.from(`${key.at}:${key.id}`).toString('base64url');
}

/** The key of a cursor from {@link encodeCursor}; anything else is a 422. */
export function decodeCursor(cursor: string): ActivityCursor {
  const match = /^([0-9]{1,19}):([0-9a-f-]{36})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match || BigInt(match[1]!) > MAX_NS)
    throw new ValidationError(
      'the cursor is not one this API returned',
      [{ path: 'cursor', message: 'unknown cursor' }],
      'INVALID_CURSOR',
    );
  return { at: BigInt(match[1]!), id: match[2]! };
}

/**
 * The store filter of a validated query, for `accountId` and (sub-account key, or the
 * `subAccountId` parameter of an account key) one sub-account. `ipPoolId` is the id of the
 * `ippool` name (resolved by the caller; `null` when no pool has that name, which matches nothing).
 */
export function toActivityFilter(
  query: ActivityFilterQuery,
  accountId: number,
  subAccountId: number | undefined,
  ipPoolId?: number | null,
): ActivityFilter {
  return {
    accountId,
    ...(subAccountId !== undefined && { subAccountId }),
    ...(query.recipient !== undefined && { recipient: query.recipient.toLowerCase() }),
    ...(query.sender !== undefined && { sender: query.sender.toLowerCase() }),
    ...(query.status !== undefined && { status: query.status }),
    ...(query.group !== undefined && { group: query.group }),
    ...(query.messageId !== undefined && { messageId: query.messageId.toLowerCase() }),
    // No pool of that name: an id no row has, so the answer is empty rather than unfiltered.
    ...(ipPoolId !== undefined && { ipPoolId: ipPoolId ?? -1 }),
    ...(query.from !== undefined && { from: query.from }),
    ...(query.to !== undefined && { to: query.to }),
    ...(query.type !== undefined && { eventTypes: query.type }),
  };
}
