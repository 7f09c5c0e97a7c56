import { z } from 'zod';
import { epochNsSchema, mailboxSchema } from '../model/wire-schemas.js';
import type { EventRecord, MessageRecord, SendBatchRecord } from '../store/index.js';

/** The wire shape of {@link eventToWire}: the reference's `Event`. */
export const eventWireSchema = z.object({
  eventID: z.string(),
  type: z.int().min(0).max(9),
  messageID: z.string(),
  accountID: z.int(),
  subAccountID: z.int(),
  groups: z.array(z.string()),
  ipID: z.int().optional(),
  ipPoolID: z.int().optional(),
  tpspId: z.int().optional(),
  domainID: z.int().optional(),
  messageSubject: z.string(),
  from: z.string(),
  fromName: z.string(),
  to: z.string(),
  toName: z.string(),
  submittedAt: epochNsSchema,
  smtpCode: z.int().optional(),
  smtpDescription: z.string().optional(),
  eventMetadata: z.record(z.string(), z.unknown()),
});

const customFieldsSchema = z.record(z.string(), z.string());
const copyRecipientSchema = mailboxSchema.extend({ customFields: customFieldsSchema });

/** A message as an activity item shows it: the wire shape of {@link messageToWire} without `events`. */
export const messageItemWireSchema = z.object({
  messageID: z.string(),
  accountID: z.int(),
  subAccountID: z.int(),
  ipID: z.int().optional(),
  accountIPPoolID: z.int().optional(),
  tpspId: z.int().optional(),
  emailType: z.literal('api'),
  submittedAt: epochNsSchema,
  from: mailboxSchema,
  replyTo: mailboxSchema.optional(),
  to: mailboxSchema.extend({
    cc: z.array(copyRecipientSchema),
    bcc: z.array(copyRecipientSchema),
    customFields: customFieldsSchema,
  }),
  copyOf: z.object({ messageID: z.string(), kind: z.enum(['cc', 'bcc']), to: mailboxSchema }).optional(),
  // The reference's `Message.attachments` is a list of strings: the file names (the content is not repeated).
  attachments: z.array(z.string()),
  groups: z.array(z.string()),
  ipPool: z.string().optional(),
  headers: z.record(z.string(), z.string()),
  customFields: customFieldsSchema,
  subject: z.string(),
  preText: z.string().optional(),
  htmlBody: z.string().optional(),
  textBody: z.string().optional(),
  ampBody: z.string().optional(),
  trackOpens: z.boolean(),
  trackClicks: z.boolean(),
  attempt: z.int(),
  webhookEndpoint: z.string().optional(),
  /** Sent with a stored template (docs/templates.md): which one, and which version. */
  template: z.object({ id: z.int(), name: z.string(), version: z.int() }).optional(),
  status: z.enum([
    'queued',
    'deferred',
    'delivered',
    'dropped',
    'smtp_dropped',
    'hard_bounced',
    'scheduled',
    'cancelled',
  ]),
  /** A scheduled send (docs/sending.md): when it is or was due. */
  sendAt: epochNsSchema.optional(),
});

/** The wire shape of {@link messageToWire}: the reference's `Message`, plus `status` and `events`. */
export const messageWireSchema = messageItemWireSchema.extend({ events: z.array(eventWireSchema) });

/** A cc or bcc copy in a send's answer (`CopyResponseEntry` of src/sending/accept.ts). */
const copyResponseWireSchema = z.object({
  kind: z.enum(['cc', 'bcc']),
  email: z.string(),
  messageId: z.string(),
  errorCode: z.int().optional(),
  message: z.string().optional(),
});

/**
 * The answer of a send: one entry per `to` recipient, the reference's `EmailResponse`, plus its
 * `copies` (`SendResponseEntry` of src/sending/accept.ts; the route's types hold the two together).
 */
export const sendResponseWireSchema = z.array(
  z.object({
    to: z.string(),
    submittedAt: epochNsSchema,
    messageId: z.string(),
    errorCode: z.int().optional(),
    message: z.string().optional(),
    copies: z.array(copyResponseWireSchema).optional(),
    /** A scheduled send: the request's id (cancel it whole with it) and when it is due. */
    batchId: z.string().optional(),
    sendAt: epochNsSchema.optional(),
  }),
);

/** A stored event as the reference's `Event`. */
export function eventToWire(
  event: EventRecord,
  message: MessageRecord,
  batch: SendBatchRecord,
): z.output<typeof eventWireSchema> {
  const metadata = event.metadata as { smtpCode?: number; smtpDescription?: string };
  return {
    eventID: event.id,
    type: event.type,
    messageID: event.messageId,
    accountID: event.accountId,
    subAccountID: event.subAccountId,
    groups: batch.content.groups,
    ...(message.ipId !== null && { ipID: message.ipId }),
    ...(message.ipPoolId !== null && { ipPoolID: message.ipPoolId }),
    ...(message.tpspId !== null && { tpspId: message.tpspId }),
    ...(batch.domainId !== null && { domainID: batch.domainId }),
    messageSubject: batch.content.subject,
    from: batch.content.from.email,
    fromName: batch.content.from.name,
    to: message.to.email,
    toName: message.to.name,
    submittedAt: event.created,
    ...(metadata.smtpCode !== undefined && { smtpCode: metadata.smtpCode }),
    ...(metadata.smtpDescription !== undefined && { smtpDescription: metadata.smtpDescription }),
    eventMetadata: event.metadata,
  };
}

/**
 * A stored message as the reference's `Message` (what was accepted, templates unrendered), plus
 * `status` and its `events`, oldest first.
 */
export function messageToWire(
  message: MessageRecord,
  batch: SendBatchRecord,
  events: readonly EventRecord[],
): z.output<typeof messageWireSchema> {
  const c = batch.content;
  return {
    messageID: message.id,
    accountID: message.accountId,
    subAccountID: message.subAccountId,
    ...(message.ipId !== null && { ipID: message.ipId }),
    ...(message.ipPoolId !== null && { accountIPPoolID: message.ipPoolId }),
    ...(message.tpspId !== null && { tpspId: message.tpspId }),
    emailType: 'api',
    submittedAt: message.submittedAt,
    from: c.from,
    ...(c.replyTo && { replyTo: c.replyTo }),
    to: {
      email: message.to.email,
      name: message.to.name,
      cc: message.cc,
      bcc: message.bcc,
      customFields: message.customFields,
    },
    // A cc or bcc copy (a message of its own): the recipient's message it is a copy of.
    ...(message.copyOf && {
      copyOf: { messageID: message.copyOf.messageId, kind: message.copyOf.kind, to: message.copyOf.to },
    }),
    attachments: c.attachments.map((a) => a.filename),
    groups: c.groups,
    ...(c.ippool !== undefined && { ipPool: c.ippool }),
    headers: c.headers,
    customFields: message.customFields,
    subject: c.subject,
    ...(c.preText !== undefined && { preText: c.preText }),
    ...(c.htmlBody !== undefined && { htmlBody: c.htmlBody }),
    ...(c.textBody !== undefined && { textBody: c.textBody }),
    ...(c.ampBody !== undefined && { ampBody: c.ampBody }),
    trackOpens: c.trackOpens,
    trackClicks: c.trackClicks,
    attempt: message.attempts,
    ...(c.webhookEndpoint !== undefined && { webhookEndpoint: c.webhookEndpoint }),
    // Sent with a stored template: which one, and which version (mailplane's addition).
    ...(c.template && { template: { id: c.template.id, name: c.template.name, version: c.template.version } }),
    status: message.status,
    // A scheduled send: when it is (or was) due, epoch ns (docs/sending.md).
    ...(c.sendAt !== undefined && { sendAt: BigInt(c.sendAt) }),
    events: events.map((event) => eventToWire(event, message, batch)),
  };
}
