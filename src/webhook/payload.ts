import { stringifyJson } from '../model/json.js';
import { eventToWire } from '../sending/message-wire.js';
import type { EventRecord, MessageRecord, SendBatchRecord } from '../store/index.js';

/** What marks a delivery as part of a replay. */
export interface WebhookReplayMark {
  id: string;
  /** When the replay was asked for (ns). */
  requestedAt: bigint;
}

/**
 * The JSON body of a webhook delivery, as the spec's Events section gives it: `event` (the
 * reference's `Event`: `eventID`, `type`, `messageID`, `eventMetadata` and the message's routing
 * fields, as the message API shows events) and `emailMessage` (`messageID`, `from`, `to`,
 * `subject`, the custom `headers` of the send and its `groups`). The subject is the one given to
 * the send, as the message API answers it (templates unrendered). A cc or bcc copy's events also
 * carry `emailMessage.copyOf`, the recipient's message it is a copy of. A replayed event also carries
 * `replay`: the replay's `id` and `requestedAt` (ns), inside the signed body (docs/webhooks.md).
 */
export function webhookPayload(
  event: EventRecord,
  message: MessageRecord,
  batch: SendBatchRecord,
  replay?: WebhookReplayMark,
): string {
  const c = batch.content;
  // stringifyJson: `submittedAt` is nanoseconds, beyond 2^53, written digit for digit.
  return stringifyJson({
    event: eventToWire(event, message, batch),
    emailMessage: {
      messageID: message.id,
      from: { email: c.from.email, name: c.from.name },
      to: [{ email: message.to.email, name: message.to.name }],
      subject: c.subject,
      headers: c.headers,
      groups: c.groups,
      // A cc or bcc copy's events are its own message's: this names the recipient's message.
      ...(message.copyOf && { copyOf: { messageID: message.copyOf.messageId, kind: message.copyOf.kind } }),
    },
    ...(replay && { replay: { id: replay.id, requestedAt: replay.requestedAt } }),
  });
}
