/**
 * Received messages in the activity (docs/activity.md, "Received messages"; docs/inbound.md):
 * the account's list of every sub-account's received mail, cursor paged as the activity lists,
 * the sub-account's list with the same filters (offset paged, as it was first made), one message
 * by an account key, and the replies threaded to a sent message.
 */
import { z } from 'zod';
import { NotFoundError } from '../errors.js';
import { inboundSummaryToWire, type inboundMessageItemWireSchema } from '../inbound/message-wire.js';
import { isUuid } from '../model/ids.js';
import { listQuerySchema, MAX_LIST_LIMIT, queryInt } from '../model/paging.js';
import { epochNsSchema } from '../model/wire-schemas.js';
import type { InboundMessageFilter, InboundMessageSummary, MailplaneStore } from '../store/index.js';
import type { ActivityPageBody } from './list.js';
import { decodeCursor, encodeCursor, filterText, timeBound } from './query.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface InboundListDeps {
  readonly store: MailplaneStore;
}

const STATUSES = ['pending', 'posted', 'forwarded', 'stored', 'failed'] as const;

/** The filters of both lists of received messages. */
const filterShape = {
  routeId: queryInt(1).optional().meta({ description: 'Only the messages this route took.' }),
  status: z.enum(STATUSES).optional(),
  sender: filterText(320).optional().meta({ description: 'The `From` address, exact, case-insensitive.' }),
  recipient: filterText(320).optional().meta({ description: 'The envelope recipient, exact, case-insensitive.' }),
  from: timeBound(false).optional(),
  to: timeBound(true).optional(),
};

/** The query of `GET /account/inbound/message`: the filters, `subAccountId`, `search`, `cursor` and `limit`. */
export const accountInboundQuerySchema = z.strictObject({
  ...filterShape,
  subAccountId: queryInt(1).optional(),
  search: listQuerySchema.shape.search,
  cursor: z.string().max(200).optional(),
  limit: queryInt(1)
    .optional()
    .transform((v) => Math.min(v ?? 100, MAX_LIST_LIMIT)),
});

/** The query of `GET /subaccount/inbound/message`: `offset`, `limit` (default 20), `search` and the filters. */
export const subAccountInboundQuerySchema = listQuerySchema.extend(filterShape);

type FilterQuery = z.infer<z.ZodObject<typeof filterShape>> & { search?: string | undefined };

/** The store filter of a validated query for `accountId`, and one sub-account when given. */
function toFilter(query: FilterQuery, accountId: number, subAccountId: number | undefined): InboundMessageFilter {
  return {
    accountId,
    ...(subAccountId !== undefined && { subAccountId }),
    ...(query.routeId !== undefined && { routeId: query.routeId }),
    ...(query.status !== undefined && { status: query.status }),
    ...(query.sender !== undefined && { sender: query.sender.toLowerCase() }),
    ...(query.recipient !== undefined && { recipient: query.recipient.toLowerCase() }),
    ...(query.search !== undefined && { search: query.search }),
    ...(query.from !== undefined && { from: query.from }),
    ...(query.to !== undefined && { to: query.to }),
  };
}

/** A received message as the lists answer it. */
export type InboundItem = z.output<typeof inboundMessageItemWireSchema>;

/** `GET /account/inbound/message`: one page of the account's received messages, newest first. */
export async function listAccountInbound(
  ctx: InboundListDeps,
  accountId: number,
  query: z.output<typeof accountInboundQuerySchema>,
): Promise<ActivityPageBody<InboundItem>> {
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const rows = await ctx.store.inbound.listMessageSummaries(toFilter(query, accountId, query.subAccountId), {
    limit: query.limit,
    ...(after && { after }),
  });
  const last = rows.at(-1);
  return {
    items: rows.map(inboundSummaryToWire),
    nextCursor: rows.length === query.limit && last ? encodeCursor({ at: last.receivedAt, id: last.id }) : null,
  };
}

/** `GET /subaccount/inbound/message`: a page of the sub-account's received messages, newest first, by offset. */
export async function listSubAccountInbound(
  ctx: InboundListDeps,
  subAccount: { id: number; accountId: number },
  query: z.output<typeof subAccountInboundQuerySchema>,
): Promise<InboundItem[]> {
  const filter = toFilter(query, subAccount.accountId, subAccount.id);
  const rows = await ctx.store.inbound.listMessageSummaries(filter, { limit: query.limit, offset: query.offset });
  return rows.map(inboundSummaryToWire);
}

/**
 * One received message of the account, or of its sub-account `subAccountId` when given; throws
 * 406 INBOUND_MESSAGE_NOT_FOUND for any other id.
 */
export async function inboundItem(
  ctx: InboundListDeps,
  scope: { accountId: number; subAccountId?: number },
  id: string,
): Promise<InboundItem> {
  // A message id is a UUID: anything else (a NUL, which PostgreSQL refuses in text) names nothing.
  const [found] = isUuid(id)
    ? await ctx.store.inbound.listMessageSummaries(
        {
          accountId: scope.accountId,
          id: id.toLowerCase(),
          ...(scope.subAccountId !== undefined && { subAccountId: scope.subAccountId }),
        },
        { limit: 1 },
      )
    : [];
  if (!found)
    throw new NotFoundError(
      'INBOUND_MESSAGE_NOT_FOUND',
      `no received message with id ${id} in this ${scope.subAccountId === undefined ? 'account' : 'sub-account'}`,
    );
  return inboundSummaryToWire(found);
}

/** How many replies a sent message shows: the newest; the inbound lists have the rest (`search`, `sender`). */
export const MAX_REPLIES_SHOWN = 20;

/** A reply threaded to a sent message, as `GET …/message/{id}` lists it in `replies`. */
export const replyWireSchema = z.object({
  id: z.string().meta({ description: 'The received message’s id: `GET …/inbound/message/{id}`.' }),
  from: z.string().meta({ description: 'The `From` header’s address.' }),
  subject: z.string(),
  receivedAt: epochNsSchema,
  status: z.enum(STATUSES),
});

const toReply = (m: InboundMessageSummary): z.output<typeof replyWireSchema> => ({
  id: m.id,
  from: m.from,
  subject: m.subject,
  receivedAt: m.receivedAt,
  status: m.status,
});

/**
 * The received messages threaded to the sent message `messageId`, newest first, at most
 * {@link MAX_REPLIES_SHOWN}: the account's, or those its sub-account `subAccountId` received (a
 * sub-account key reads no other sub-account's mail).
 */
export async function repliesTo(
  ctx: InboundListDeps,
  scope: { accountId: number; subAccountId?: number },
  messageId: string,
): Promise<z.output<typeof replyWireSchema>[]> {
  const rows = await ctx.store.inbound.listMessageSummaries(
    {
      accountId: scope.accountId,
      inReplyToMessageId: messageId,
      ...(scope.subAccountId !== undefined && { subAccountId: scope.subAccountId }),
    },
    { limit: MAX_REPLIES_SHOWN },
  );
  return rows.map(toReply);
}
