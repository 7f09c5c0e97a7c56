/**
 * The `inbound-forward` job (docs/inbound.md, "Forwarding"): a received message whose route forwards
 * it is sent again as a send of the route's sub-account, through the accept path like any send, so
 * the sub-account's block, suppressions and recipient allowance apply, and the forward shows in the
 * activity with its own delivery, retries and bounces. Delivery sends the message as received,
 * ARC-sealed and DKIM-signed for the receiving domain (src/delivery/compose-forward.ts).
 *
 * The send carries an idempotency key made when the job was queued, so a job that runs again after
 * its send committed sends nothing twice. The received message ends `forwarded` (naming the
 * forward's message id) or `failed` with the reason.
 */
import { normalizeName } from '../dns/names.js';
import { MailplaneError } from '../errors.js';
import { requestHash, sendIdempotently, type IdempotencyClaim } from '../idempotency/keys.js';
import { PermanentJobError, RetryJobError } from '../jobs/errors.js';
import { INBOUND_FORWARD_JOB, jobGiveUp, jobHandler, type MailplaneJobs } from '../jobs/kinds.js';
import type { EnqueueJob } from '../jobs/queue.js';
import type { JobHandler, JobKindOptions } from '../jobs/types.js';
import { stringifyJson } from '../model/json.js';
import { nowNs } from '../model/time.js';
import { createRateLimiter } from '../rate-limits/limiter.js';
import { acceptSend, type SendResponseEntry, type AcceptDeps } from '../sending/accept.js';
import type { SendRequest } from '../sending/request.js';
import { literalTemplate } from '../template/renderer.js';
import type { InboundMessageRecord } from '../store/inbound-store.js';
import type { Logger } from '../logging/logger.js';

/** What this module uses of the instance: what it calls uses ({@link AcceptDeps}), and the fields below. */
export interface ForwardJobDeps extends AcceptDeps {
  readonly logger: Logger;
}

/** Error kinds of a send that another try may get past (the database, a fault); the rest are final. */
const RETRIED_ERROR_KINDS: ReadonlySet<string> = new Set(['unavailable', 'storage', 'internal']);

/** Attempts of a forward job that fails on a fault before the message is marked failed. */
const MAX_ATTEMPTS = 8;

/** Characters of a failure's reason kept in the message's detail. */
const MAX_DETAIL = 500;

/**
 * The job that forwards `record` along its route `routeId`; `sendKey` tells a forward again
 * (`POST /subaccount/inbound/message/{id}/redeliver`) from the first.
 */
export function inboundForwardJob(
  record: Pick<InboundMessageRecord, 'id' | 'accountId' | 'subAccountId'>,
  routeId: number,
  sendKey = `mailplane-forward:${record.id}`,
): EnqueueJob<MailplaneJobs> {
  return {
    kind: INBOUND_FORWARD_JOB,
    payload: {
      messageId: record.id,
      accountId: record.accountId,
      subAccountId: record.subAccountId,
      routeId,
      sendKey,
    },
    dedupeKey: sendKey,
  };
}

/**
 * The send request of a forward: from the address that received the message (a verified sending
 * domain of the sub-account: only those receive), to the route's address. Its parts only describe
 * the forward in lists; the message delivered is the one received. The subject is made a literal
 * template, since the accept path reads it as one.
 */
export function forwardRequest(record: InboundMessageRecord, forwardTo: string): SendRequest {
  return {
    from: { email: record.rcptTo },
    to: [{ email: forwardTo }],
    subject: literalTemplate(record.subject),
    textBody: '',
    trackOpens: false,
    trackClicks: false,
    stream: 'transactional',
  };
}

/** The normalised domain of an address, as the listener looks receiving domains up. */
export const domainOfAddress = (address: string) => normalizeName(address.slice(address.lastIndexOf('@') + 1));

/** The handler of `inbound-forward` jobs. */
export function inboundForwardJobHandlers(ctx: ForwardJobDeps): Record<string, JobHandler | JobKindOptions> {
  // A forward draws on the sub-account's recipient allowance like its API and relay sends.
  const limiter = ctx.config.rateLimits === false ? null : createRateLimiter(ctx, ctx.config.rateLimits);
  const settle = (id: string, status: 'forwarded' | 'failed', detail: string) =>
    ctx.store.inbound.setMessageStatus(id, status, detail.slice(0, MAX_DETAIL), nowNs(ctx.clock));
  const fail = async (id: string, reason: string): Promise<never> => {
    await settle(id, 'failed', reason);
    throw new PermanentJobError(reason);
  };

  const forward = jobHandler(INBOUND_FORWARD_JOB, async (job) => {
    const { messageId, accountId, subAccountId, routeId, sendKey } = job.payload;
    const record = await ctx.store.inbound.getMessage(subAccountId, messageId);
    if (!record) throw new PermanentJobError('the received message was deleted before it was forwarded');
    // The route as it is now: a changed address applies to the forwards still to be made.
    const route = await ctx.store.inbound.getRoute(subAccountId, routeId);
    if (!route || route.action !== 'forward' || route.forwardTo === null)
      return fail(messageId, 'the route was deleted or no longer forwards');
    if (record.raw === null) return fail(messageId, 'the raw message was not kept, so it cannot be forwarded');
    // A domain this instance receives for would hand the message back to a route: a loop.
    if (await ctx.store.inbound.receivingDomain(domainOfAddress(route.forwardTo)))
      return fail(messageId, `${route.forwardTo} is an address this instance receives mail for: forwarding would loop`);
    const subAccount = await ctx.store.subAccounts.get(accountId, subAccountId);
    if (!subAccount) throw new PermanentJobError('the sub-account was deleted before the message was forwarded');

    const limited = limiter && (await limiter.hit({ kind: 'subaccount', id: subAccountId }, 'recipients', 1)).refusal;
    if (limited) {
      const runAt = ctx.clock.now() + limited.retryAfterSeconds * 1000;
      throw new RetryJobError(limited.message, { runAt, countAttempt: false });
    }
    const request = forwardRequest(record, route.forwardTo);
    const claim: IdempotencyClaim = { key: sendKey, requestHash: requestHash(INBOUND_FORWARD_JOB, request) };
    let entries: SendResponseEntry[];
    try {
      const answer = await sendIdempotently(ctx, subAccountId, claim, async () =>
        stringifyJson(
          await acceptSend(ctx, subAccount, request, { idempotency: claim, forward: { inboundMessageId: record.id } }),
        ),
      );
      entries = JSON.parse(answer.response) as SendResponseEntry[];
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (error instanceof MailplaneError && !RETRIED_ERROR_KINDS.has(error.kind))
        return fail(messageId, `the forward was refused: ${reason}`);
      throw error;
    }
    const [entry] = entries;
    if (!entry) return fail(messageId, 'the forward was accepted for no recipient');
    if (entry.errorCode !== undefined)
      return fail(
        messageId,
        `the forward to ${route.forwardTo} was dropped (message ${entry.messageId}): ${entry.message}`,
      );
    await settle(messageId, 'forwarded', `forwarded to ${route.forwardTo} as message ${entry.messageId}`);
  });

  return {
    [INBOUND_FORWARD_JOB]: {
      handler: forward,
      maxAttempts: MAX_ATTEMPTS,
      // A fault on every attempt: the message says so instead of staying pending.
      giveUp: jobGiveUp(INBOUND_FORWARD_JOB, async (job, reason) => {
        const message = await ctx.store.inbound.getMessage(job.payload.subAccountId, job.payload.messageId);
        if (message?.status === 'pending') await settle(message.id, 'failed', reason);
      }),
    },
  };
}
