/**
 * Cancelling a scheduled send (docs/sending.md, "Scheduled sending"): one message (with its cc and
 * bcc copies, which are messages of their own) or a whole request by its batch id. Only a message
 * still `scheduled` can be cancelled; each one moves to `cancelled` by compare-and-set (so a cancel
 * racing the release at `sendAt` either wins or is told the send has started) and records a
 * Cancelled event, which reaches the activity log and the webhooks like every event.
 */
import { z } from 'zod';
import { NotFoundError, ValidationError } from '../errors.js';
import { applyLifecycle, type LifecycleApplyDeps } from '../lifecycle/apply.js';
import type { MailplaneStore, MessageRecord, SendBatchRecord, SubAccountRecord } from '../store/index.js';
import type { MailplaneMetrics } from '../metrics/metrics.js';

/** What this module uses of the instance: what it calls uses ({@link LifecycleApplyDeps}), and the fields below. */
export interface CancelDeps extends LifecycleApplyDeps {
  readonly store: MailplaneStore;
  readonly metrics: MailplaneMetrics;
}

/** Messages read per query while listing a batch (a batch holds at most 2,000). */
const PAGE = 500;
/** A message or batch id is a UUID; anything else is an unknown id. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The wire shape of a cancel's answer: the request's (batch) id and the ids of the messages it cancelled. */
export const cancelResultWireSchema = z.object({ batchId: z.string(), cancelled: z.array(z.string()) });

/** What a cancel answers, as {@link cancelResultWireSchema} has it. */
export type CancelResult = z.output<typeof cancelResultWireSchema>;

/** Every message of batch `batchId`, in id order. */
async function batchMessages(ctx: CancelDeps, batchId: string): Promise<MessageRecord[]> {
  const messages: MessageRecord[] = [];
  let afterId: string | undefined;
  for (;;) {
    const page = await ctx.store.messages.listBatch(batchId, PAGE, afterId);
    messages.push(...page);
    if (page.length < PAGE) return messages;
    afterId = page[page.length - 1]!.id;
  }
}

const notCancellable = (what: string) =>
  new ValidationError(
    `${what}: only a scheduled message whose send has not started can be cancelled`,
    [],
    'MESSAGE_NOT_CANCELLABLE',
  );

/** Cancels `messages` (those still scheduled) in one transaction; answers the ids cancelled. */
async function cancelAll(
  ctx: CancelDeps,
  batch: SendBatchRecord,
  messages: readonly MessageRecord[],
): Promise<string[]> {
  const atMs = ctx.clock.now();
  const cancelled: string[] = [];
  await ctx.store.transaction(async (tx) => {
    cancelled.length = 0;
    for (const message of messages) {
      if (message.status !== 'scheduled') continue;
      const result = await applyLifecycle(ctx, tx, { message, batch, outcome: 'cancelled', atMs });
      if (result.kind === 'applied') cancelled.push(message.id);
    }
  });
  for (const _ of cancelled) ctx.metrics.messages.inc({ outcome: 'cancelled' });
  return cancelled;
}

/**
 * Cancels message `messageId` of `subAccount` and its still-scheduled cc and bcc copies. An id
 * that is not the sub-account's is unknown (406 `MESSAGE_NOT_FOUND`); a message that is not
 * scheduled any more (its send started, or it was cancelled) is refused (422 `MESSAGE_NOT_CANCELLABLE`).
 */
export async function cancelMessage(
  ctx: CancelDeps,
  subAccount: SubAccountRecord,
  messageId: string,
): Promise<CancelResult> {
  const found = UUID.test(messageId)
    ? await ctx.store.messages.get(subAccount.accountId, messageId.toLowerCase())
    : null;
  if (!found || found.message.subAccountId !== subAccount.id)
    throw new NotFoundError('MESSAGE_NOT_FOUND', `no message with id ${messageId} in this sub-account`);
  const { message, batch } = found;
  if (message.status !== 'scheduled') throw notCancellable(`message ${message.id} is ${message.status}`);
  const copies =
    message.copyOf === null
      ? (await batchMessages(ctx, batch.id)).filter((m) => m.copyOf?.messageId === message.id)
      : [];
  const cancelled = await cancelAll(ctx, batch, [message, ...copies]);
  // Released (or cancelled) between the read and the write: the compare-and-set said so.
  if (!cancelled.includes(message.id)) throw notCancellable(`message ${message.id} has started`);
  return { batchId: batch.id, cancelled };
}

/**
 * Cancels every still-scheduled message of the send request `batchId` (the `batchId` a scheduled
 * send answers with). Unknown, or another sub-account's: 406 `BATCH_NOT_FOUND`; nothing left to
 * cancel: 422 `MESSAGE_NOT_CANCELLABLE`.
 */
export async function cancelBatch(
  ctx: CancelDeps,
  subAccount: SubAccountRecord,
  batchId: string,
): Promise<CancelResult> {
  const messages = UUID.test(batchId) ? await batchMessages(ctx, batchId.toLowerCase()) : [];
  if (messages.length === 0 || messages[0]!.subAccountId !== subAccount.id)
    throw new NotFoundError('BATCH_NOT_FOUND', `no send request with id ${batchId} in this sub-account`);
  const scheduled = messages.filter((m) => m.status === 'scheduled');
  const found = scheduled.length > 0 ? await ctx.store.messages.getForDelivery(scheduled[0]!.id) : null;
  const cancelled = found ? await cancelAll(ctx, found.batch, scheduled) : [];
  if (cancelled.length === 0) throw notCancellable(`no message of request ${batchId} is still scheduled`);
  return { batchId: messages[0]!.batchId, cancelled };
}
