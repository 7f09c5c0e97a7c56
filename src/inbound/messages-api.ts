/**
 * The received messages of a sub-account through the API (docs/inbound.md, "Received messages"):
 * one message, its raw copy, and delivering it again through its route (the lists:
 * src/activity/inbound-list.ts).
 */
import { GoneError, NotFoundError, ValidationError } from '../errors.js';
import { isUuid } from '../model/ids.js';
import { nowNs } from '../model/time.js';
import { parseReceivedMime } from '../smtp/server.js';
import type { InboundMessageRecord } from '../store/index.js';
import { inboundForwardJob } from './forward-job.js';
import { firstStatus, inboundWebhookJob, type IntakeDeps } from './intake.js';

/** What this module uses of the instance: what it calls uses, {@link IntakeDeps}, and nothing more. */
export type InboundMessagesDeps = IntakeDeps;

/**
 * Attachments up to this size are inline in a payload made again (the listener's default): the API
 * does not know the `inlineAttachmentBytes` the listener was given.
 */
export const REDELIVERY_INLINE_ATTACHMENT_BYTES = 256 * 1024;

/** A received message of the sub-account; throws 406 INBOUND_MESSAGE_NOT_FOUND. */
export async function getInboundMessage(
  ctx: InboundMessagesDeps,
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
export async function rawInboundMessage(ctx: InboundMessagesDeps, subAccountId: number, id: string): Promise<Buffer> {
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
 * gets a new `inbound-webhook` job and a `forward` route a new `inbound-forward` job (the message is
 * `pending` again, then `posted`/`forwarded` or `failed`), a `store` route records its status again. Answers the message as it is after.
 * Throws 406, 410 INBOUND_RAW_NOT_KEPT, 422 INBOUND_ROUTE_DELETED, or 422 INBOUND_ROUTE_REFUSES.
 */
export async function redeliverInboundMessage(
  ctx: InboundMessagesDeps,
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
  if (route.action === 'store') {
    await ctx.store.inbound.setMessageStatus(message.id, status, detail, updated);
    return { ...message, status, detail, updated };
  }
  // Keys of their own: the first post's or forward's job (done or not) must not swallow this one.
  const job =
    route.action === 'forward'
      ? inboundForwardJob(message, route.id, `mailplane-forward:${message.id}:again:${ctx.ids.uuid()}`)
      : inboundWebhookJob(
          ctx,
          message,
          // Malformed MIME is posted as raw text again, as the listener did when it arrived.
          await parseReceivedMime(raw).catch(() => null),
          raw,
          route.id,
          REDELIVERY_INLINE_ATTACHMENT_BYTES,
          `inbound:${message.id}:again:${ctx.ids.uuid()}`,
        );
  await ctx.store.transaction(async (store) => {
    await store.inbound.setMessageStatus(message.id, status, detail, updated);
    await ctx.jobs.enqueue([job], { store });
  });
  ctx.jobs.notify();
  return { ...message, status, detail, updated };
}
