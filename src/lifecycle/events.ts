/**
 * How a message's events and counters are written: one event record per event, and its counters
 * added on the event's UTC day for all mail and for each group of the send. Acceptance writes
 * many messages' at once (`newEvent`, `counterIncrements`); everything later goes one message at
 * a time through {@link recordMessageEvent}.
 */
import { dayOfMs } from '../model/dates.js';
import { msToNs, type EpochNs, type Clock } from '../model/time.js';
import {
  ALL_MAIL,
  type EventRecord,
  type EventType,
  type MailplaneStore,
  type MessageRecord,
  type SendBatchRecord,
} from '../store/index.js';
import type { StoredCounter } from '../store/stats-store.js';
import { reputationIncrements } from './reputation-counts.js';
import type { IdGenerator } from '../model/ids.js';
import type { WebhookOutbox } from './webhook-outbox.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface LifecycleEventsDeps {
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly webhookOutbox: WebhookOutbox;
}

/** Counters to add, each by its amount. */
export type CounterDelta = Partial<Record<StoredCounter, number>>;

/** An event of `message` of `type` at `created` (ns). */
export function newEvent(
  ctx: Pick<LifecycleEventsDeps, 'ids'>,
  message: Pick<MessageRecord, 'id' | 'accountId' | 'subAccountId'>,
  type: EventType,
  created: EpochNs,
  metadata: Record<string, unknown>,
): EventRecord {
  return {
    id: ctx.ids.uuid(),
    messageId: message.id,
    accountId: message.accountId,
    subAccountId: message.subAccountId,
    type,
    created,
    metadata,
  };
}

/** The stats increments that add `counters` on day `day` for all mail and each of `groups`. */
export function counterIncrements(
  owner: Pick<MessageRecord, 'accountId' | 'subAccountId'>,
  groups: readonly string[],
  day: string,
  counters: CounterDelta,
) {
  return [ALL_MAIL, ...groups].map((group) => ({
    accountId: owner.accountId,
    subAccountId: owner.subAccountId,
    day,
    group,
    counters,
  }));
}

/** Adds `delta` into `total`. */
export function addCounters(total: CounterDelta, delta: CounterDelta): void {
  for (const [name, value] of Object.entries(delta) as [StoredCounter, number][])
    total[name] = (total[name] ?? 0) + value;
}

/** What happened to a message, for {@link recordMessageEvent}. */
export interface MessageEventInput {
  message: MessageRecord;
  batch: SendBatchRecord;
  type: EventType;
  metadata?: Record<string, unknown>;
  /** Counters to add (on the event's UTC day, for all mail and each of the batch's groups). */
  counters: CounterDelta;
  /** When it happened, in epoch milliseconds; default: now by the instance clock. */
  atMs?: number;
  /**
   * The delivery attempt this event records, when it records one: the IP it left from (`message`
   * is the record the attempt started with, whose `ipId` may be an earlier attempt's), and whether
   * it ended the message (counted as `sent` in the reputation counters).
   */
  attempt?: { ipId: number | null; ended: boolean };
}

/**
 * Appends one event to a message's log, queues its webhook posts (the outbox) and adds its
 * counters (the daily ones and the reputation guard's hourly ones), through `store`: a transaction's store, so that all of it commits or none does.
 * Returns the event written.
 */
export async function recordMessageEvent(
  ctx: LifecycleEventsDeps,
  store: MailplaneStore,
  input: MessageEventInput,
): Promise<EventRecord> {
  const nowMs = input.atMs ?? ctx.clock.now();
  const { message, batch } = input;
  const event = newEvent(ctx, message, input.type, msToNs(nowMs), input.metadata ?? {});
  await store.messages.addEvents([event]);
  await ctx.webhookOutbox.add(store, [event]);
  if (Object.keys(input.counters).length > 0) {
    await store.stats.increment(counterIncrements(message, batch.content.groups, dayOfMs(nowMs), input.counters));
  }
  const reputation = reputationIncrements([
    {
      accountId: message.accountId,
      subAccountId: message.subAccountId,
      domainId: batch.domainId,
      recipient: message.to.email,
      ipId: input.attempt ? input.attempt.ipId : message.ipId,
      atMs: nowMs,
      counters: input.counters,
      sent: input.attempt?.ended === true,
    },
  ]);
  if (reputation.length > 0) await store.reputation.increment(reputation);
  return event;
}
