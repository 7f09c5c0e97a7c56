/**
 * The post log of a received message through the API (docs/inbound.md, "Received messages"):
 * `GET /subaccount/inbound/message/{id}/attempt`, each POST of the message to its route's webhook,
 * newest first, in the wire shape of the event webhooks' delivery log.
 */
import { z } from 'zod';
import { queryInt } from '../model/paging.js';
import { epochNsSchema } from '../model/wire-schemas.js';
import type { InboundPostAttemptRecord } from '../store/index.js';
import { getInboundMessage, type InboundMessagesDeps } from './messages-api.js';

/** What this module uses of the instance: what it calls uses, {@link InboundMessagesDeps}, and nothing more. */
export type PostAttemptsDeps = InboundMessagesDeps;

/** The query of the post log: at most 100 attempts (clamped, as the webhook delivery log's), skipping `offset`. */
export const inboundPostAttemptQuerySchema = z.object({
  limit: queryInt(1)
    .optional()
    .transform((v) => Math.min(v ?? 20, 100)),
  offset: queryInt(0)
    .optional()
    .transform((v) => v ?? 0),
});

/** The wire shape of {@link inboundPostAttemptToWire}. */
export const inboundPostAttemptWireSchema = z.object({
  id: z.int(),
  messageId: z.string().meta({ description: 'The received message posted (its `webhook-id`).' }),
  routeId: z.int().meta({ description: 'The route posted for (it may have been deleted since).' }),
  url: z.string().meta({ description: 'The URL posted to, as the route had it then.' }),
  attempt: z.int().meta({ description: '1 for the first POST, 2 for the first retry; a redelivery starts at 1.' }),
  result: z.enum(['delivered', 'will-retry', 'gave-up', 'failed']),
  status: z.int().nullable().meta({ description: 'The receiver’s HTTP status; `null` when it did not answer.' }),
  error: z.string().nullable().meta({ description: 'Why the POST failed, in plain words; `null` on success.' }),
  durationMs: z.int(),
  created: epochNsSchema,
  nextRetryAt: epochNsSchema.nullable(),
});

/** One POST of a received message as the API answers it. */
export function inboundPostAttemptToWire(
  record: InboundPostAttemptRecord,
): z.output<typeof inboundPostAttemptWireSchema> {
  return {
    id: record.id,
    messageId: record.messageId,
    routeId: record.routeId,
    url: record.url,
    attempt: record.attempt,
    result: record.result,
    status: record.status,
    error: record.error,
    durationMs: record.durationMs,
    created: record.created,
    nextRetryAt: record.nextRetryAt,
  };
}

/** The POSTs of a received message of the sub-account, newest first; throws 406 INBOUND_MESSAGE_NOT_FOUND. */
export async function listInboundPostAttempts(
  ctx: PostAttemptsDeps,
  subAccountId: number,
  id: string,
  query: z.output<typeof inboundPostAttemptQuerySchema>,
): Promise<InboundPostAttemptRecord[]> {
  const message = await getInboundMessage(ctx, subAccountId, id);
  return ctx.store.inbound.listPostAttempts(subAccountId, message.id, query);
}
