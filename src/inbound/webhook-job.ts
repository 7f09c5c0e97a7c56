/**
 * The `inbound-webhook` job: posts a received message's payload to its route's URL, signed on the
 * Standard Webhooks scheme with the route's secret (`webhook-id`: the message id, the same on every
 * attempt), through the instance's webhook sender (its target check, pinned connections and
 * deadlines), retried on the event webhooks' schedule (`webhooks.retryDelaysMs`). The message ends
 * `posted`, or `failed` with the reason once the schedule is used up or the target is refused.
 *
 * As for event webhooks, at most `webhooks.maxConcurrentPerWebhook` POSTs to one route and
 * `webhooks.maxConcurrentPerAccount` of one account are under way per process: a job that finds its
 * route or account at the cap hands its post to a new job due within `webhooks.busyDelayMs`, without
 * counting an attempt, so a route whose receiver hangs holds a few of the webhook lane's slots at most.
 */
import type { MailplaneContext } from '../context.js';
import { PermanentJobError, RetryJobError } from '../jobs/errors.js';
import { INBOUND_WEBHOOK_JOB, jobGiveUp, jobHandler } from '../jobs/kinds.js';
import type { JobHandler, JobKindOptions } from '../jobs/types.js';
import { nowNs } from '../model/time.js';
import { WebhookPostSlots } from '../webhook/post-slots.js';
import type { WebhookSender } from '../webhook/sender.js';

/** Characters of a failure's reason kept in the message's detail. */
const MAX_DETAIL = 500;

/** The handler of `inbound-webhook` jobs; `sender` is the instance's webhook sender. */
export function inboundWebhookJobHandlers(
  ctx: MailplaneContext,
  sender: WebhookSender,
): Record<string, JobHandler | JobKindOptions> {
  const config = ctx.config.webhooks;
  // Routes' POSTs under way in this process, apart from the event webhooks' (a route id is no webhook id).
  const slots = new WebhookPostSlots(config);
  const settle = (messageId: string, status: 'posted' | 'failed', detail: string) =>
    ctx.store.inbound.setMessageStatus(messageId, status, detail.slice(0, MAX_DETAIL), nowNs(ctx.clock));
  const fail = async (messageId: string, reason: string): Promise<never> => {
    await settle(messageId, 'failed', reason);
    throw new PermanentJobError(reason);
  };

  const post = jobHandler(INBOUND_WEBHOOK_JOB, async (job) => {
    const { messageId, accountId, subAccountId, routeId, body, postsBefore = 0 } = job.payload;
    // The route as it is now: a changed URL or secret applies to the posts still to be made.
    const route = await ctx.store.inbound.getRoute(subAccountId, routeId);
    if (!route || route.action !== 'webhook' || route.url === null)
      return fail(messageId, 'the route was deleted or no longer posts to a webhook');
    const slot = slots.tryAcquire({ id: routeId, accountId });
    if (!slot) {
      const putOff = { ...job.payload, postsBefore: postsBefore + job.attempts - 1 };
      // Spread over the delay, not all at its end: put-off jobs that came due together would find the
      // route busy together again, and a backlog would drain at two posts a delay.
      const runAt = ctx.clock.now() + Math.round(config.busyDelayMs * (0.1 + 0.9 * Math.random()));
      await ctx.jobs.enqueue([
        { kind: INBOUND_WEBHOOK_JOB, payload: putOff, runAt, dedupeKey: `inbound:${messageId}:busy:${job.id}` },
      ]);
      return;
    }
    const secrets = route.secretSealed === null ? [] : [ctx.secrets.decrypt(route.secretSealed)];
    const result = await sender.postSigned(route.url, body, secrets, messageId).finally(slot);
    if (result.ok) return void (await settle(messageId, 'posted', `posted: HTTP ${result.status}`));
    if (!result.retry) return fail(messageId, result.error);
    // The retry after POST n waits retryDelaysMs[n - 1].
    const posts = postsBefore + job.attempts;
    const next = config.retryDelaysMs[posts - 1];
    if (next === undefined) return fail(messageId, `gave up after ${posts} attempts: ${result.error}`);
    throw new RetryJobError(result.error, { runAt: ctx.clock.now() + next });
  });

  return {
    [INBOUND_WEBHOOK_JOB]: {
      handler: post,
      // The runner must not give up before the schedule does; when it does give up (a fault on every
      // attempt), the message says so instead of staying pending.
      maxAttempts: config.retryDelaysMs.length + 1,
      giveUp: jobGiveUp(INBOUND_WEBHOOK_JOB, async (job, reason) => {
        const message = await ctx.store.inbound.getMessage(job.payload.subAccountId, job.payload.messageId);
        if (message?.status === 'pending') await settle(message.id, 'failed', reason);
      }),
    },
  };
}
