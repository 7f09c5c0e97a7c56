/**
 * Records what a delivery attempt ended in, in one transaction (shared with other outcomes
 * committed at the same moment, through a group commit): the lifecycle step of the attempt's
 * outcome (src/lifecycle/table.ts: the message's state, moved only from the state the attempt
 * started in, its event, the counters of the day, the suppression of a hard-bounced address, the
 * next retry of a soft bounce), and a warming IP's traffic.
 */
import { applyLifecycle, type LifecycleApplyDeps } from '../lifecycle/apply.js';
import { attemptOutcome } from '../lifecycle/table.js';
import { providerLabel, replyClass, type MailplaneMetrics } from '../metrics/metrics.js';
import { providerOfAddress } from '../routing/providers.js';
import type { GroupCommit } from '../store/group-commit.js';
import type { MessageStatus, MessageRecord, SendBatchRecord } from '../store/index.js';
import type { DeliveryResult, DeliveryRoute } from './transport.js';
import type { MailplaneConfig } from '../mailplane-config.js';

/** What this module uses of the instance: what it calls uses ({@link LifecycleApplyDeps}), and the fields below. */
export interface OutcomeDeps extends LifecycleApplyDeps {
  readonly config: MailplaneConfig;
  readonly metrics: MailplaneMetrics;
  readonly writes: GroupCommit;
}

/** The SMTP reply as one line for `smtpDescription` and the suppression's `smtpError`. */
export function describeReply(result: DeliveryResult): string {
  // Replies are untrusted bytes: control characters (NUL, which PostgreSQL text refuses) become '?'.
  const text = result.text
    .replace(/\s*\r?\n\s*/g, ' ')
    .replace(/[\u0000-\u001f\u007f\ufffd]/g, '?')
    .trim();
  const reply =
    result.smtpCode === null ? text : text.startsWith(String(result.smtpCode)) ? text : `${result.smtpCode} ${text}`;
  return (result.host ? `${reply} (${result.host})` : reply).slice(0, 2000);
}

/**
 * The attempt in the metrics: its reply by class and recipient provider (the warming IP's
 * classification, else the consumer-domain table without a lookup), and, when it moved the
 * message, the outcome and the latency of a delivery.
 */
function countOutcome(
  ctx: OutcomeDeps,
  message: MessageRecord,
  batch: SendBatchRecord,
  result: DeliveryResult,
  route: DeliveryRoute,
  outcome: string | null,
  nowMs: number,
): void {
  const provider = route.warmup?.provider ?? providerOfAddress(message.to.email);
  ctx.metrics.smtpReplies.inc({ class: replyClass(result.smtpCode), provider: providerLabel(provider) });
  if (outcome === null) return;
  ctx.metrics.messages.inc({ outcome });
  if (outcome === 'smtp-dropped') ctx.metrics.dropped.inc({ reason: 'smtp-dropped' });
  // A scheduled send's latency runs from its sendAt: the hours it was meant to wait are not delay.
  const fromNs =
    batch.content.sendAt !== undefined && BigInt(batch.content.sendAt) > message.submittedAt
      ? BigInt(batch.content.sendAt)
      : message.submittedAt;
  if (outcome === 'delivered')
    ctx.metrics.deliveryLatency.observe(Math.max(0, nowMs - Number(fromNs / 1_000_000n)) / 1000);
}

/** What {@link recordDeliveryOutcome} did. */
export type RecordedOutcome = { status: MessageStatus; retryAt?: number } | null;

/**
 * Applies `result` to `message`, which the attempt found in state `message.status`. Answers the
 * new state (and when a retry was scheduled), or `null` when another worker had already moved the
 * message. `writes` is the group commit to go through (delivery's own, which lingers to gather
 * outcomes; default `ctx.writes`); `final` ends the message's retries (its queue lifetime is over).
 */
export async function recordDeliveryOutcome(
  ctx: OutcomeDeps,
  message: MessageRecord,
  batch: SendBatchRecord,
  result: DeliveryResult,
  route: DeliveryRoute,
  writes: GroupCommit = ctx.writes,
  options: { final?: boolean } = {},
): Promise<RecordedOutcome> {
  const nowMs = ctx.clock.now();
  const attempts = message.attempts + 1;
  const delays = ctx.config.delivery.retryDelaysMs;
  const description = describeReply(result);
  const outcome = attemptOutcome(result, attempts > delays.length || options.final === true);
  const retryAt = outcome === 'soft-bounced' ? nowMs + delays[attempts - 1]! : undefined;
  const metadata: Record<string, unknown> = {
    smtpCode: result.smtpCode,
    smtpDescription: description,
    attempt: attempts,
  };
  if (result.enhancedCode) metadata.enhancedCode = result.enhancedCode;
  if (retryAt !== undefined) metadata.retryAt = retryAt;

  // Through the group commit: outcomes that arrive together share one transaction (a bulk send
  // records hundreds per second). If a group fails, each write is re-run alone after the rollback,
  // so `status` always reflects the transaction that committed, and no outcome is lost or doubled.
  let status: MessageStatus | null = null;
  await writes.commit(async (tx) => {
    status = null;
    const applied = await applyLifecycle(ctx, tx, {
      message,
      batch,
      outcome,
      atMs: nowMs,
      fields: {
        attempts,
        smtpCode: result.smtpCode,
        smtpDescription: description,
        ipId: route.ipId,
        ipPoolId: route.ipPoolId,
        tpspId: route.tpspId,
      },
      metadata,
      smtpError: description,
      ...(retryAt !== undefined && { retryAt }),
    });
    if (applied.kind !== 'applied') return;
    if (route.warmup && route.ipId !== null) {
      // A warming IP's traffic: today's count against its cap, and what the next stage judges.
      const { startedAt, provider, day, window } = route.warmup;
      const failed = result.kind === 'hard' || result.kind === 'dropped';
      await tx.warmup.addTraffic([
        {
          ipId: route.ipId,
          startedAt,
          provider,
          day,
          window,
          sent: 1,
          bounced: failed ? 1 : 0,
          deferred: result.kind === 'soft' ? 1 : 0,
          reserved: true,
        },
      ]);
    }
    status = applied.step.to;
  });
  const moved: MessageStatus | null = status;
  // Committed with the traffic above: the reservation is part of the stored outcome now.
  if (moved !== null && route.warmup) route.warmup.recorded = true;
  countOutcome(ctx, message, batch, result, route, moved === null ? null : outcome, nowMs);
  return moved === null ? null : { status: moved, ...(retryAt !== undefined && { retryAt }) };
}
