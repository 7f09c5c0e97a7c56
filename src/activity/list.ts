import { z } from 'zod';
import { eventToWire, eventWireSchema, messageToWire } from '../sending/message-wire.js';
import type { ActivityCursor, ActivityFilter, MailplaneStore } from '../store/index.js';
import { messageItemViewSchema, renderedSubject, type RenderedSubjectDeps } from './rendered-subject.js';
import { decodeCursor, encodeCursor, toActivityFilter, type ActivityFilterQuery, type ActivityQuery } from './query.js';

/** What this module uses of the instance: what it calls uses ({@link RenderedSubjectDeps}), and the fields below. */
export interface ActivityListDeps extends RenderedSubjectDeps {
  readonly store: MailplaneStore;
}

/** Who asks: an account (any of its sub-accounts, or the one of `subAccountId`) or one sub-account. */
export interface ActivityScope {
  accountId: number;
  /** Set for a sub-account key: its own id, whatever the query says. */
  subAccountId?: number;
}

/** One page of an activity list: the items, newest first, and the cursor of the next page (`null` at the end). */
export interface ActivityPageBody<T> {
  items: T[];
  nextCursor: string | null;
}

/** The wire shape of a page of {@link listMessages}. */
export const messagePageWireSchema = z.object({
  items: z.array(messageItemViewSchema),
  nextCursor: z.string().nullable(),
});
/** The wire shape of a page of {@link listEvents}. */
export const eventPageWireSchema = z.object({ items: z.array(eventWireSchema), nextCursor: z.string().nullable() });

/** The store filter of `query` in `scope`, with the `ippool` name resolved to its id. */
export async function activityFilter(
  ctx: ActivityListDeps,
  scope: ActivityScope,
  query: ActivityFilterQuery,
): Promise<ActivityFilter> {
  const subAccountId = scope.subAccountId ?? query.subAccountId;
  const pool =
    query.ippool === undefined
      ? undefined
      : ((await ctx.store.ipPools.findByName(scope.accountId, query.ippool))?.id ?? null);
  return toActivityFilter(query, scope.accountId, subAccountId, pool);
}

/**
 * A message as an activity item: the reference's `Message` with its latest `status` and its
 * `renderedSubject`, without its events.
 */
async function messageItem(
  ctx: ActivityListDeps,
  message: Parameters<typeof messageToWire>[0],
  batch: Parameters<typeof messageToWire>[1],
) {
  const { events: _events, ...item } = messageToWire(message, batch, []);
  return { ...item, renderedSubject: await renderedSubject(ctx, message, batch) };
}

/** A message activity item (see {@link listMessages}). */
export type MessageItem = Awaited<ReturnType<typeof messageItem>>;
/** An event activity item: the reference's `Event`, as webhooks post it. */
export type EventItem = ReturnType<typeof eventToWire>;

/** One page of messages of `filter` from `after` on, and the key of the next page (none at the end). */
export async function messagePage(
  ctx: ActivityListDeps,
  filter: ActivityFilter,
  limit: number,
  after?: ActivityCursor,
) {
  const rows = await ctx.store.messages.listActivity(filter, { limit, ...(after && { after }) });
  const last = rows.at(-1)?.message;
  return {
    items: await Promise.all(rows.map((row) => messageItem(ctx, row.message, row.batch))),
    next: rows.length === limit && last ? { at: last.submittedAt, id: last.id } : undefined,
  };
}

/** One page of events of `filter` from `after` on. */
export async function eventPage(ctx: ActivityListDeps, filter: ActivityFilter, limit: number, after?: ActivityCursor) {
  const rows = await ctx.store.messages.listActivityEvents(filter, { limit, ...(after && { after }) });
  const last = rows.at(-1)?.event;
  return {
    items: rows.map((row) => eventToWire(row.event, row.message, row.batch)),
    next: rows.length === limit && last ? { at: last.created, id: last.id } : undefined,
  };
}

/** `GET …/message`: one page of messages, newest first. */
export async function listMessages(
  ctx: ActivityListDeps,
  scope: ActivityScope,
  query: ActivityQuery,
): Promise<ActivityPageBody<MessageItem>> {
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const page = await messagePage(ctx, await activityFilter(ctx, scope, query), query.limit, after);
  return { items: page.items, nextCursor: page.next ? encodeCursor(page.next) : null };
}

/** `GET …/event`: one page of events, newest first. */
export async function listEvents(
  ctx: ActivityListDeps,
  scope: ActivityScope,
  query: ActivityQuery,
): Promise<ActivityPageBody<EventItem>> {
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const page = await eventPage(ctx, await activityFilter(ctx, scope, query), query.limit, after);
  return { items: page.items, nextCursor: page.next ? encodeCursor(page.next) : null };
}
