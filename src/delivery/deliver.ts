/** One delivery attempt of one message: render, compose and sign, choose a route, send, record. */
import { renderMessage } from '../sending/render.js';
import { hostname } from 'node:os';
import type { DomainRecord, ForwardedMessage, MailplaneStore, MessageRecord, SendBatchRecord } from '../store/index.js';
import { ABORTED, type DeliveryCaches } from './caches.js';
import { composeMessage, type ComposeDeps } from './compose.js';
import { composeForward } from './compose-forward.js';
import { recordDeliveryOutcome, type RecordedOutcome, type OutcomeDeps } from './outcome.js';
import { judgePushBack } from './push-back.js';
import type { PaidSlot } from './route-admission.js';
import { deferByRouting } from './routing-wait.js';
import type { DeliveryRouting, RouteChoice } from './route.js';
import { noReply, type DeliveryResult, type OutboundMessage, type Transport } from './transport.js';
import type { TemplateCompiler } from '../template/renderer.js';

/** What this module uses of the instance: what it calls uses ({@link OutcomeDeps}, {@link ComposeDeps}), and the fields below. */
export interface DeliverDeps extends OutcomeDeps, ComposeDeps {
  readonly store: MailplaneStore;
  readonly routing: DeliveryRouting;
  readonly templateCompiler: TemplateCompiler;
}

/** The sending domain of a batch, or `null` when it is gone (deleted since the send was accepted). */
export async function sendingDomain(
  ctx: Pick<DeliverDeps, 'store'>,
  batch: SendBatchRecord,
): Promise<DomainRecord | null> {
  return batch.domainId === null ? null : ctx.store.domains.get(batch.subAccountId, batch.domainId);
}

/**
 * Makes one attempt to deliver `message` (in state `queued` or `deferred`) and records its outcome.
 * Never throws for what the receiving side did; throws only when storage fails (the job is retried).
 * The steps: choose a route (`paid`: a shaping slot the message booked); wait when no source can
 * send now; drop when the sending domain is gone; otherwise compose, sign and send; wait uncounted
 * after a push-back of the source; record the answer; release what the route held.
 */
export async function deliverOne(
  ctx: DeliverDeps,
  transport: Transport,
  caches: DeliveryCaches,
  message: MessageRecord,
  batch: SendBatchRecord,
  domain: DomainRecord | null,
  signal?: AbortSignal,
  paid?: PaidSlot,
): Promise<RecordedOutcome> {
  const choice = await ctx.routing.choose(message, batch, { paid, signal });
  try {
    // No pool can send it now: not an attempt, not a bounce (docs/delivery.md, "Routing").
    if (domain && choice.kind === 'wait')
      return await deferByRouting(ctx, message, choice.reason, choice.retryAt, choice.slot);
    if (!domain || choice.kind === 'wait')
      return await recordDeliveryOutcome(ctx, message, batch, domainGone(), choice.route, caches.outcomes);
    const attempt = await attemptDelivery(ctx, { transport, caches, message, batch, domain, choice, signal });
    if ('settled' in attempt) return attempt.settled;
    // A throttle, or a refusal before the transaction, is no retry of this message (push-back.ts).
    const verdict = await judgePushBack(ctx, message, batch, choice, attempt.result);
    if ('waited' in verdict) return verdict.waited;
    // Recorded even when the lease was lost after the server answered: recordOutcome moves the message only once.
    // Awaited here, so the reservation below is released after the outcome is stored, not before.
    return await recordDeliveryOutcome(ctx, message, batch, attempt.result, choice.route, caches.outcomes, {
      final: verdict.final,
    });
  } finally {
    // A warmup send reserved by choose() is in the stored count now, or was never made; the
    // message is no longer in flight for shaping.
    await ctx.routing.release(choice);
  }
}

/** One attempt to send a message whose sending domain still exists, along the route routing chose. */
interface DeliveryAttempt {
  transport: Transport;
  caches: DeliveryCaches;
  message: MessageRecord;
  batch: SendBatchRecord;
  domain: DomainRecord;
  choice: Extract<RouteChoice, { kind: 'send' }>;
  signal: AbortSignal | undefined;
}

/**
 * Where an attempt ended: a `result` to record as the message's outcome, or `settled` when there is
 * nothing to record (the job was handed back, or the message waits for a busy destination).
 */
type AttemptEnd = { result: DeliveryResult } | { settled: RecordedOutcome };

/** The outcome of a message whose domain was deleted after the send was accepted: nothing can sign for it any more. */
function domainGone(): DeliveryResult {
  return {
    kind: 'dropped',
    smtpCode: null,
    text: 'SENDER_DOMAIN_NOT_VERIFIED: the sending domain was deleted before delivery',
  };
}

/** Where a message of `batch` is signed: transactional mail ahead of bulk mail waiting for the signing thread. */
function signerFor(caches: DeliveryCaches, batch: SendBatchRecord) {
  return batch.content.stream === 'transactional' ? caches.signer.signUrgent : caches.signer.sign;
}

/** The outcome of a forward whose received message is no longer kept (retention, or deleted with its sub-account). */
function forwardGone(): DeliveryResult {
  return {
    kind: 'dropped',
    smtpCode: null,
    text: 'INBOUND_MESSAGE_GONE: the received message to forward is no longer kept',
  };
}

/**
 * Composes and sends the message (a forward: the message received, src/delivery/compose-forward.ts).
 * A failure to compose (storage, a template) throws: the job is retried.
 */
async function attemptDelivery(ctx: DeliverDeps, attempt: DeliveryAttempt): Promise<AttemptEnd> {
  const { forward } = attempt.batch.content;
  const outbound = forward ? await forwardOutbound(ctx, attempt, forward) : await composeOutbound(ctx, attempt);
  if (outbound === null) return { result: forwardGone() };
  return sendComposed(ctx, attempt, outbound);
}

/** The forward of a received message, or `null` when its raw bytes are gone. */
async function forwardOutbound(
  ctx: DeliverDeps,
  { caches, message, batch, domain }: DeliveryAttempt,
  forward: ForwardedMessage,
): Promise<OutboundMessage | null> {
  const received = await ctx.store.inbound.getMessage(batch.subAccountId, forward.inboundMessageId);
  if (!received?.raw) return null;
  return composeForward({
    message,
    received: { ...received, raw: received.raw },
    domain,
    dkimKey: caches.dkimKeys.get(ctx, domain),
    authServId: ctx.config.inbound.hostname ?? hostname(),
    sign: signerFor(caches, batch),
  });
}

/** The message rendered for its recipient, composed as MIME and DKIM-signed for its sending domain. */
async function composeOutbound(
  ctx: DeliverDeps,
  { caches, message, batch, domain }: DeliveryAttempt,
): Promise<OutboundMessage> {
  return composeMessage(
    ctx,
    {
      batch,
      message,
      domain,
      rendered: renderMessage(ctx, await caches.templates.get(batch), message, batch),
      dkimKey: caches.dkimKeys.get(ctx, domain),
      dateMs: ctx.clock.now(),
      sign: signerFor(caches, batch),
    },
    caches.bodies,
  );
}

/**
 * Sends `outbound` through the chosen route's transport (a TPSP's, or the instance's), racing the
 * job's abort. A transport must not throw for network faults; if one does, the fault counts as a
 * temporary failure (no reply). The deferral of a busy destination runs inside the same guard.
 */
async function sendComposed(
  ctx: DeliverDeps,
  { transport, caches, message, choice, signal }: DeliveryAttempt,
  outbound: OutboundMessage,
): Promise<AttemptEnd> {
  try {
    const via = choice.transport ?? transport;
    const sent = via.send(outbound, choice.route, signal ? { signal } : undefined);
    const settled = signal ? await Promise.race([sent, caches.aborts.of(signal)]) : await sent;
    // The job was handed back (shutdown, lost lease) while the server had not answered: nothing
    // is recorded, the message stays as it was and is sent again by whoever runs the job next
    // (at least once). Without this the abandoned attempt would linger until the server's
    // timeout and then record an outcome for a job already handed back.
    if (settled === ABORTED) return { settled: null };
    if (settled.notAttempted) return { settled: await deferBusy(ctx, message, settled.text) };
    return { result: settled };
  } catch (error) {
    return { result: noReply(`transport failed: ${error instanceof Error ? error.message : String(error)}`) };
  }
}

/**
 * The destination is busy or stalled: the message waits in the queue, not in memory holding a
 * slot, and comes back after the busy delay plus up to a fifth of it, so the waiting ones spread out.
 */
function deferBusy(ctx: DeliverDeps, message: MessageRecord, reason: string): Promise<RecordedOutcome> {
  const wait = ctx.config.delivery.busyRetryDelayMs;
  return deferByRouting(ctx, message, reason, ctx.clock.now() + wait + Math.floor(Math.random() * (wait / 5)));
}
