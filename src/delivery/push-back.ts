/**
 * What a receiver's push-back does to the message that got it. Traffic shaping reads the reply
 * first (src/shaping/service.ts: a throttling or blocking reply slows or suspends the source for
 * that destination). Then:
 * - a throttle or block of the source, and a refusal before the message's own transaction (a
 *   refused connection, a `421` greeting, a refused MAIL FROM), are not this message's fault: it
 *   waits in the queue without a retry counted, so a storm of `421`s uses up no message's retries;
 * - anything else is an attempt, recorded as the reply says (src/delivery/outcome.ts).
 * The queue lifetime (`DeliveryConfig.queueLifetimeMs`) bounds the waiting: past it, the attempt is
 * recorded as the last one, so a dead MX still ends.
 */
import type { MessageRecord, SendBatchRecord } from '../store/index.js';
import type { RecordedOutcome } from './outcome.js';
import type { DeliveryRouting, RouteChoice } from './route.js';
import { deferByRouting, type RoutingWaitDeps } from './routing-wait.js';
import type { DeliveryResult } from './transport.js';
import type { MailplaneConfig } from '../mailplane-config.js';
import type { Clock } from '../model/time.js';

/** What this module uses of the instance: what it calls uses ({@link RoutingWaitDeps}), and the fields below. */
export interface PushBackDeps extends RoutingWaitDeps {
  readonly config: MailplaneConfig;
  readonly clock: Clock;
  readonly routing: DeliveryRouting;
}

/** Longest wait between two refusals before the transaction (they grow with the message's age up to it). */
export const MAX_UNCOUNTED_WAIT_MS = 3_600_000;

/** What becomes of an attempt's result: the message waited, or the result is recorded (`final`: as the last attempt). */
export type PushBackVerdict = { waited: RecordedOutcome } | { record: true; final: boolean };

/** When the message entered the queue: its `sendAt` for a scheduled send, else when it was accepted (epoch ms). */
function queuedSinceMs(message: MessageRecord, batch: SendBatchRecord): number {
  const submitted = Number(message.submittedAt / 1_000_000n);
  const sendAt = batch.content.sendAt === undefined ? 0 : Number(BigInt(batch.content.sendAt) / 1_000_000n);
  return Math.max(submitted, sendAt);
}

/** Tells shaping what the receiver said, and decides whether the message waits uncounted or the result is recorded. */
export async function judgePushBack(
  ctx: PushBackDeps,
  message: MessageRecord,
  batch: SendBatchRecord,
  choice: Extract<RouteChoice, { kind: 'send' }>,
  result: DeliveryResult,
): Promise<PushBackVerdict> {
  const verdict = await ctx.routing.shaping.learn(choice.shaping, {
    code: result.smtpCode,
    text: result.text,
    ...(result.enhancedCode !== undefined && { enhancedCode: result.enhancedCode }),
    delivered: result.kind === 'delivered',
  });
  const nowMs = ctx.clock.now();
  const age = nowMs - queuedSinceMs(message, batch);
  const expired = age >= ctx.config.delivery.queueLifetimeMs;
  if (expired) return { record: true, final: true };
  if (verdict.kind === 'wait')
    return { waited: await deferByRouting(ctx, message, `throttled: ${verdict.action.reason}`, verdict.retryAt) };
  if (result.kind === 'soft' && result.beforeTransaction) {
    // Waits grow with the message's age (about doubling), from the busy delay up to an hour.
    const wait = Math.min(MAX_UNCOUNTED_WAIT_MS, Math.max(ctx.config.delivery.busyRetryDelayMs, age));
    const reason = `refused before the transaction: ${result.text.slice(0, 200)}`;
    return { waited: await deferByRouting(ctx, message, reason, nowMs + wait) };
  }
  return { record: true, final: false };
}
