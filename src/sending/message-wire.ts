import type { EventRecord, MessageRecord, SendBatchRecord } from '../store/index.js';

/** A stored event as the reference's `Event`. */
export function eventToWire(event: EventRecord, message: MessageRecord, batch: SendBatchRecord) {
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
export function messageToWire(message: MessageRecord, batch: SendBatchRecord, events: readonly EventRecord[]) {
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
    to: { email: message.to.email, name: message.to.name, cc: message.cc, bcc: message.bcc, customFields: message.customFields },
    // A cc or bcc copy (a message of its own): the recipient's message it is a copy of.
    ...(message.copyOf && { copyOf: { messageID: message.copyOf.messageId, kind: message.copyOf.kind, to: message.copyOf.to } }),
    attachments: c.attachments.map((a) => ({ filename: a.filename })),
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
