/**
 * The received messages of a sub-account through the API (docs/inbound.md, "Received messages"):
 * the list, one message, its raw copy, and delivering it again through its route.
 */
import type { MailplaneContext } from '../context.js';
import { GoneError, NotFoundError, ValidationError } from '../errors.js';
import { isUuid } from '../model/ids.js';
import { nowNs } from '../model/time.js';
import { parseReceivedMime } from '../smtp/server.js';
import type { InboundMessageQuery, InboundMessageRecord } from '../store/index.js';
import { firstStatus, inboundWebhookJob } from './intake.js';

/**
 * Attachments up to this size are inline in a payload made again (the listener's default): the API
 * does not know the `inlineAttachmentBytes` the listener was given.
 */
export const REDELIVERY_INLINE_ATTACHMENT_BYTES = 256 * 1024;

/** A page of the sub-account's received messages, newest first; `search` matches sender, recipient and subject. */
export function listInboundMessages(
  ctx: MailplaneContext,
  subAccountId: number,
  query: InboundMessageQuery,
): Promise<InboundMessageRecord[]> {
  return ctx.store.inbound.listMessages(subAccountId, query);
}

/** A received message of the sub-account; throws 406 INBOUND_MESSAGE_NOT_FOUND. */
export async function getInboundMessage(
  ctx: MailplaneContext,
  subAccountId: number,
  id: string,
): Promise<InboundMessageRecord> {
  // A message id is a UUID: anything else (a NUL, which PostgreSQL refuses in text) names nothing.
  const message = isUuid(id) ? await ctx.store.inbound.getMessage(subAccountId, id.toLowerCase()) : null;
  if (!message)
    throw new NotFoundError('INBOUND_MESSAGE_NOT_FOUND', `no received message with id ${id} in this sub-account`);
  return message;
}

/** The raw copy of a received message; throws 406, or 410 INBOUND_RAW_NOT_KEPT when it was too large to keep. */
export async function rawInboundMessage(ctx: MailplaneContext, subAccountId: number, id: string): Promise<Buffer> {
  const { raw, size } = await getInboundMessage(ctx, subAccountId, id);
  if (raw === null) throw rawNotKept(size);
  return raw;
}

const rawNotKept = (size: number) =>
  new GoneError(
    'INBOUND_RAW_NOT_KEPT',
    `the raw copy of this message (${size} bytes) was not kept: it was larger than the listener's maxStoredRawBytes`,
  );

/**
 * Runs the message's route action again from its raw copy, as the route is now: a `webhook` route
 * gets a new `inbound-webhook` job (the message is `pending` again, then `posted` or `failed`), a
 * `store` or `forward` route records its status again. Answers the message as it is after.
 * Throws 406, 410 INBOUND_RAW_NOT_KEPT, 422 INBOUND_ROUTE_DELETED, or 422 INBOUND_ROUTE_REFUSES.
 */
export async function redeliverInboundMessage(
  ctx: MailplaneContext,
  subAccountId: number,
  id: string,
): Promise<InboundMessageRecord> {
  const message = await getInboundMessage(ctx, subAccountId, id);
  const { raw } = message;
  if (raw === null) throw rawNotKept(message.size);
  const route = message.routeId === null ? null : await ctx.store.inbound.getRoute(subAccountId, message.routeId);
  if (!route)
    throw new ValidationError(
      'the route that took this message was deleted: create a route for its recipient and send the message again',
      [],
      'INBOUND_ROUTE_DELETED',
    );
  if (route.action === 'refuse')
    throw new ValidationError(
      `the route ${route.pattern} now refuses this mail: change its action to deliver the message again`,
      [],
      'INBOUND_ROUTE_REFUSES',
    );
  const updated = nowNs(ctx.clock);
  const { status, detail } = firstStatus(route);
  if (route.action !== 'webhook') {
    await ctx.store.inbound.setMessageStatus(message.id, status, detail, updated);
    return { ...message, status, detail, updated };
  }
  // Malformed MIME is posted as raw text again, as the listener did when it arrived.
  const parsed = await parseReceivedMime(raw).catch(() => null);
  // A key of its own: the first post's job (done or not) must not swallow this one.
  const again = `inbound:${message.id}:again:${ctx.ids.uuid()}`;
  const job = inboundWebhookJob(ctx, message, parsed, raw, route.id, REDELIVERY_INLINE_ATTACHMENT_BYTES, again);
  await ctx.store.transaction(async (store) => {
    await store.inbound.setMessageStatus(message.id, status, detail, updated);
    await ctx.jobs.enqueue([job], { store });
  });
  ctx.jobs.notify();
  return { ...message, status, detail, updated };
}
