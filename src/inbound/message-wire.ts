/**
 * The wire shape of a received message in the API (`/subaccount/inbound/message`, docs/inbound.md,
 * "Received messages"): everything the record holds but the raw copy, which has its own endpoint.
 */
import { z } from 'zod';
import { epochNsSchema } from '../model/wire-schemas.js';
import type { InboundMessageRecord, InboundMessageSummary } from '../store/index.js';

const verdict = z.string().meta({ description: 'mailauth’s verdict in a lower-case word: `pass`, `fail`, `none`, …' });

/** The wire shape of {@link inboundMessageToWire}. */
export const inboundMessageWireSchema = z.object({
  id: z.string().meta({ description: 'The received message’s id (a UUID), as in the webhook payload.' }),
  envelope: z.object({
    mailFrom: z.string().meta({ description: 'The `MAIL FROM` address; empty for a bounce.' }),
    rcptTo: z.string().meta({ description: 'The one recipient this record is for.' }),
  }),
  from: z.string().meta({ description: 'The `From` header’s address.' }),
  subject: z.string(),
  messageIdHeader: z.string().meta({ description: 'The `Message-ID` header without angle brackets; empty when none.' }),
  inReplyToMessageId: z
    .string()
    .nullable()
    .meta({ description: 'The id of the message sent through mailplane that this one answers, if any.' }),
  routeId: z.int().nullable().meta({ description: 'The route that took it; `null` once that route is deleted.' }),
  status: z.enum(['pending', 'posted', 'forwarded', 'stored', 'failed']),
  detail: z.string().meta({ description: 'What the route’s action did, or why it failed; empty when nothing to say.' }),
  auth: z.object({ spf: verdict, dkim: verdict, dmarc: verdict, arc: verdict }),
  size: z.int().meta({ description: 'Size of the whole message in bytes.' }),
  receivedAt: epochNsSchema,
  updated: epochNsSchema,
  rawKept: z.boolean().meta({
    description: 'Whether the raw message is kept (`GET …/raw`, `POST …/redeliver`): up to `maxStoredRawBytes`.',
  }),
});

/** A received message as the API answers it: never its raw bytes. */
export function inboundMessageToWire(message: InboundMessageRecord): z.output<typeof inboundMessageWireSchema> {
  return {
    id: message.id,
    envelope: { mailFrom: message.mailFrom, rcptTo: message.rcptTo },
    from: message.from,
    subject: message.subject,
    messageIdHeader: message.messageIdHeader,
    inReplyToMessageId: message.inReplyToMessageId,
    routeId: message.routeId,
    status: message.status,
    detail: message.detail,
    auth: message.auth,
    size: message.size,
    receivedAt: message.receivedAt,
    updated: message.updated,
    rawKept: message.raw !== null,
  };
}

/**
 * A received message as the lists and `GET …/inbound/message/{id}` answer it: {@link inboundMessageWireSchema}
 * with its sub-account and its route (`null` once deleted).
 */
export const inboundMessageItemWireSchema = inboundMessageWireSchema.extend({
  subAccountId: z.int().meta({ description: 'The sub-account that received it (the owner of the receiving domain).' }),
  route: z
    .object({ id: z.int(), pattern: z.string() })
    .nullable()
    .meta({ description: 'The route that took it, with its pattern; `null` once that route is deleted.' }),
});

/** A message of a list as {@link inboundMessageItemWireSchema} answers it. */
export function inboundSummaryToWire(summary: InboundMessageSummary): z.output<typeof inboundMessageItemWireSchema> {
  const { rawKept, routePattern, ...message } = summary;
  return {
    ...inboundMessageToWire({ ...message, raw: null }),
    rawKept,
    subAccountId: summary.subAccountId,
    route: summary.routeId === null || routePattern === null ? null : { id: summary.routeId, pattern: routePattern },
  };
}
