/**
 * Records what a delivery attempt ended in, as the spec's state table says, in one transaction
 * (shared with other outcomes committed at the same moment, through a group commit):
 * the message's state (moved only from the state the attempt started in, so a terminal state is
 * reached exactly once), its event, the counters of the day, the suppression of a hard-bounced
 * address, and the next retry of a soft bounce.
 */
import type { MailplaneContext } from '../context.js';
import { msToNs } from '../model/time.js';
import type { StoredCounter } from '../stats/counters.js';
import type { GroupCommit } from '../store/group-commit.js';
import { recordMessageEvent } from '../sending/events.js';
import { EventType, SuppressionType, type MessageStatus, type MessageRecord, type SendBatchRecord } from '../store/index.js';
import type { DeliveryResult, DeliveryRoute } from './transport.js';

/** Job kind of one message's retry after a soft bounce. */
export const DELIVER_MESSAGE_JOB = 'deliver-message';

/** Payload of a {@link DELIVER_MESSAGE_JOB} job: the attempt it makes is `attempt + 1`. */
export interface RetryPayload {
  [key: string]: string | number;
  messageId: string;
  /** Attempts made when the retry was scheduled; a job whose message has moved on does nothing. */
  attempt: number;
}

/** The SMTP reply as one line for `smtpDescription` and the suppression's `smtpError`. */
export function describeReply(result: DeliveryResult): string {
  // Replies are untrusted bytes: control characters (NUL, which PostgreSQL text refuses) become '?'.
  const text = result.text
    .replace(/\s*\r?\n\s*/g, ' ')
    .replace(/[\u0000-\u001f\u007f\ufffd]/g, '?')
    .trim();
  const reply = result.smtpCode === null ? text : text.startsWith(String(result.smtpCode)) ? text : `${result.smtpCode} ${text}`;
  return (result.host ? `${reply} (${result.host})` : reply).slice(0, 2000);
}

/** What {@link recordDeliveryOutcome} did. */
export type RecordedOutcome = { status: MessageStatus; retryAt?: number } | null;

/**
 * Applies `result` to `message`, which the attempt found in state `from`. Answers the new state
 * (and when a retry was scheduled), or `null` when another worker had already moved the message.
 * `writes` is the group commit to go through (delivery's own, which lingers to gather outcomes;
 * default `ctx.writes`).
 */
export async function recordDeliveryOutcome(
  ctx: MailplaneContext,
  message: MessageRecord,
  batch: SendBatchRecord,
  result: DeliveryResult,
  route: DeliveryRoute,
  writes: GroupCommit = ctx.writes,
): Promise<RecordedOutcome> {
  const nowMs = ctx.clock.now();
  const now = msToNs(nowMs);
  const attempts = message.attempts + 1;
  const delays = ctx.config.delivery.retryDelaysMs;
  const description = describeReply(result);
  const exhausted = result.kind === 'soft' && attempts > delays.length;

  let status: MessageStatus;
  let eventType: EventType;
  const counters: Partial<Record<StoredCounter, number>> = {};
  const metadata: Record<string, unknown> = { smtpCode: result.smtpCode, smtpDescription: description, attempt: attempts };
  if (result.enhancedCode) metadata.enhancedCode = result.enhancedCode;
  let retryAt: number | undefined;
  switch (result.kind) {
    case 'delivered':
      status = 'delivered';
      eventType = EventType.Delivered;
      counters.delivered = 1;
      break;
    case 'hard':
      status = 'hard_bounced';
      eventType = EventType.HardBounced;
      counters.hardBounced = 1;
      break;
    case 'dropped':
      status = 'smtp_dropped';
      eventType = EventType.Dropped;
      metadata.reason = 'SMTP_DROPPED';
      counters.smtpDropped = 1;
      break;
    case 'soft':
      if (exhausted && result.policy) {
        status = 'smtp_dropped';
        eventType = EventType.Dropped;
        metadata.reason = 'SMTP_DROPPED';
        counters.smtpDropped = 1;
      } else if (exhausted) {
        status = 'hard_bounced';
        eventType = EventType.HardBounced;
        metadata.reason = 'RETRIES_EXHAUSTED';
        counters.hardBounced = 1;
      } else {
        status = 'deferred';
        eventType = EventType.SoftBounced;
        retryAt = nowMs + delays[attempts - 1]!;
        metadata.retryAt = retryAt;
        // Counted once per message, at its first soft bounce: the bounce rate stays a share of messages.
        if (message.attempts === 0) counters.softBounced = 1;
      }
      break;
  }
  // A message that soft-bounced before and now ends otherwise was counted in softBounced already;
  // its retries exhausted also count it in hardBounced, as the spec's table says.
  if (exhausted && message.attempts === 0) counters.softBounced = 1;

  const from: MessageStatus[] = message.status === 'queued' ? ['queued'] : ['deferred'];
  // Through the group commit: outcomes that arrive together share one transaction (a bulk send
  // records hundreds per second). If a group fails, each write is re-run alone after the rollback,
  // so `moved` always reflects the transaction that committed, and no outcome is lost or doubled.
  let moved = false;
  await writes.commit(async (tx) => {
    moved = false;
    const ok = await tx.messages.recordOutcome(message.id, from, {
      status,
      attempts,
      smtpCode: result.smtpCode,
      smtpDescription: description,
      ipId: route.ipId,
      ipPoolId: route.ipPoolId,
      tpspId: route.tpspId,
      updated: now,
    });
    if (!ok) return;
    await recordMessageEvent(ctx, tx, { message, batch, type: eventType, metadata, counters, atMs: nowMs });
    if (route.warmup && route.ipId !== null) {
      // A warming IP's traffic: today's count against its cap, and what the next stage judges.
      const { startedAt, provider, day, window } = route.warmup;
      const failed = result.kind === 'hard' || result.kind === 'dropped';
      await tx.warmup.addTraffic([
        { ipId: route.ipId, startedAt, provider, day, window, sent: 1, bounced: failed ? 1 : 0, deferred: result.kind === 'soft' ? 1 : 0 },
      ]);
    }
    if (result.kind === 'hard') {
      await tx.suppressions.add(message.subAccountId, [
        { email: message.to.email, type: SuppressionType.HardBounce, smtpError: description, created: now },
      ]);
    }
    if (retryAt !== undefined) {
      const payload: RetryPayload = { messageId: message.id, attempt: attempts };
      await tx.jobs.enqueue([{ kind: DELIVER_MESSAGE_JOB, payload, runAt: retryAt, dedupeKey: `${message.id}:${attempts}` }]);
    }
    moved = true;
  });
  return moved ? { status, ...(retryAt !== undefined && { retryAt }) } : null;
}
