import type { MailplaneContext } from '../context.js';
import { dayOfMs } from '../model/dates.js';
import { msToNs } from '../model/time.js';
import { ALL_MAIL, type EventRecord, type EventType, type MailplaneStore, type MessageRecord, type SendBatchRecord } from '../store/index.js';
import type { StoredCounter } from '../stats/counters.js';

/** What happened to a message, for {@link recordMessageEvent}. */
export interface MessageEventInput {
  message: MessageRecord;
  batch: SendBatchRecord;
  type: EventType;
  metadata?: Record<string, unknown>;
  /** Counters to add (on the event's UTC day, for all mail and each of the batch's groups). */
  counters: Partial<Record<StoredCounter, number>>;
  /** When it happened, in epoch milliseconds; default: now by the instance clock. */
  atMs?: number;
}

/**
 * Appends one event to a message's log and adds its counters, in the store given (pass the
 * transaction's store to make it part of a larger atomic write). Returns the event written.
 */
export async function recordMessageEvent(ctx: MailplaneContext, store: MailplaneStore, input: MessageEventInput): Promise<EventRecord> {
  const nowMs = input.atMs ?? ctx.clock.now();
  const { message, batch } = input;
  const event: EventRecord = {
    id: ctx.ids.uuid(),
    messageId: message.id,
    accountId: message.accountId,
    subAccountId: message.subAccountId,
    type: input.type,
    created: msToNs(nowMs),
    metadata: input.metadata ?? {},
  };
  await store.messages.addEvents([event]);
  if (Object.keys(input.counters).length > 0) {
    const day = dayOfMs(nowMs);
    await store.stats.increment(
      [ALL_MAIL, ...batch.content.groups].map((group) => ({
        accountId: message.accountId,
        subAccountId: message.subAccountId,
        day,
        group,
        counters: input.counters,
      })),
    );
  }
  return event;
}
