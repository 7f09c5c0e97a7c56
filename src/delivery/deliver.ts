/** One delivery attempt of one message: render, compose and sign, choose a route, send, record. */
import type { MailplaneContext } from '../context.js';
import { createGroupCommit, type GroupCommit } from '../store/group-commit.js';
import { TemplateCache, renderMessage } from '../sending/render.js';
import type { DomainRecord, MessageRecord, SendBatchRecord } from '../store/index.js';
import { SharedBodyCache } from './body-cache.js';
import { composeMessage, DkimKeyCache } from './compose.js';
import { DkimSigner } from './dkim-signer.js';
import { recordDeliveryOutcome, type RecordedOutcome } from './outcome.js';
import { deferByRouting } from './routing-wait.js';
import { noReply, type DeliveryResult, type Transport } from './transport.js';

/** Caches one worker keeps across jobs: compiled templates, DKIM keys, shared bodies of bulk batches. */
export interface DeliveryCaches {
  templates: TemplateCache;
  dkimKeys: DkimKeyCache;
  /** MIME bodies of recent bulk batches whose bodies do not vary per recipient. */
  bodies: SharedBodyCache;
  /** Where outcomes are committed: several per transaction (see {@link OUTCOME_LINGER_MS}). */
  outcomes: GroupCommit;
  /** The DKIM signatures' worker threads: batched, off the main thread and off libuv's pool. */
  signer: DkimSigner;
  /** What the sends of a job race against: its signal's abort. */
  aborts: AbortWaits;
}

/**
 * How long an outcome waits for others to share its transaction. Outcomes come one by one, as
 * servers answer, and each would otherwise be a transaction of its own (measured: 4,027 commits
 * for 4,000 messages), which costs more than its three rows. Nothing waits on an outcome but the
 * page job that sent it.
 */
export const OUTCOME_LINGER_MS = 10;

/** Fresh caches for one set of delivery handlers. */
export function createDeliveryCaches(ctx: Pick<MailplaneContext, 'store' | 'templateCompiler'>): DeliveryCaches {
  return {
    templates: new TemplateCache(ctx.templateCompiler),
    dkimKeys: new DkimKeyCache(),
    bodies: new SharedBodyCache(),
    outcomes: createGroupCommit(ctx.store, 64, OUTCOME_LINGER_MS),
    signer: new DkimSigner(),
    aborts: new AbortWaits(),
  };
}

const ABORTED = Symbol('aborted');

/** Promises that resolve when a job's signal aborts: one listener per signal however many sends wait on it. */
export class AbortWaits {
  private readonly waits = new WeakMap<AbortSignal, Promise<typeof ABORTED>>();

  /** Resolves (to a marker) when `signal` aborts. */
  of(signal: AbortSignal): Promise<typeof ABORTED> {
    let promise = this.waits.get(signal);
    if (!promise) {
      promise = new Promise((resolve) => {
        if (signal.aborted) resolve(ABORTED);
        else signal.addEventListener('abort', () => resolve(ABORTED), { once: true });
      });
      this.waits.set(signal, promise);
    }
    return promise;
  }
}

/** The sending domain of a batch, or `null` when it is gone (deleted since the send was accepted). */
export async function sendingDomain(
  ctx: Pick<MailplaneContext, 'store'>,
  batch: SendBatchRecord,
): Promise<DomainRecord | null> {
  return batch.domainId === null ? null : ctx.store.domains.get(batch.subAccountId, batch.domainId);
}

/**
 * Makes one attempt to deliver `message` (in state `queued` or `deferred`) and records its outcome.
 * Never throws for what the receiving side did; throws only when storage fails (the job is retried).
 */
export async function deliverOne(
  ctx: MailplaneContext,
  transport: Transport,
  caches: DeliveryCaches,
  message: MessageRecord,
  batch: SendBatchRecord,
  domain: DomainRecord | null,
  signal?: AbortSignal,
): Promise<RecordedOutcome> {
  const choice = await ctx.routing.choose(message, batch);
  try {
    const route = choice.route;
    let result: DeliveryResult;
    if (domain && choice.kind === 'wait') {
      // No pool can send it now: not an attempt, not a bounce (docs/delivery.md, "Routing").
      return deferByRouting(ctx, message, choice.reason, choice.retryAt);
    } else if (!domain) {
      // The domain was deleted after the send was accepted: nothing can sign for it any more.
      result = {
        kind: 'dropped',
        smtpCode: null,
        text: 'SENDER_DOMAIN_NOT_VERIFIED: the sending domain was deleted before delivery',
      };
    } else {
      const outbound = await composeMessage(
        ctx,
        {
          batch,
          message,
          domain,
          rendered: renderMessage(ctx, await caches.templates.get(batch), message, batch),
          dkimKey: caches.dkimKeys.get(ctx, domain),
          dateMs: ctx.clock.now(),
          sign: caches.signer.sign,
        },
        caches.bodies,
      );
      try {
        const via = (choice.kind === 'send' && choice.transport) || transport;
        const sent = via.send(outbound, route, signal ? { signal } : undefined);
        const settled = signal ? await Promise.race([sent, caches.aborts.of(signal)]) : await sent;
        // The job was handed back (shutdown, lost lease) while the server had not answered: nothing
        // is recorded, the message stays as it was and is sent again by whoever runs the job next
        // (at least once). Without this the abandoned attempt would linger until the server's
        // timeout and then record an outcome for a job already handed back.
        if (settled === ABORTED) return null;
        result = settled;
        if (result.notAttempted) {
          // The destination is busy or stalled: the message waits in the queue, not in memory holding a slot.
          const wait = ctx.config.delivery.busyRetryDelayMs;
          return await deferByRouting(
            ctx,
            message,
            result.text,
            ctx.clock.now() + wait + Math.floor(Math.random() * (wait / 5)),
          );
        }
      } catch (error) {
        // A transport must not throw for network faults; if one does, treat it as temporary.
        result = noReply(`transport failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    // Recorded even when the lease was lost after the server answered: recordOutcome moves the message only once.
    // Awaited here, so the reservation below is released after the outcome is stored, not before.
    return await recordDeliveryOutcome(ctx, message, batch, result, route, caches.outcomes);
  } finally {
    // A warmup send reserved by choose() is in the stored count now, or was never made.
    await ctx.routing.release(choice.route);
  }
}
