/**
 * The `inbound-webhook` job: posts a received message's payload to its route's URL, signed on the
 * Standard Webhooks scheme with the route's secret (`webhook-id`: the message id, the same on every
 * attempt), through the instance's webhook sender (its target check, pinned connections and
 * deadlines), retried on the event webhooks' schedule (`webhooks.retryDelaysMs`). The message ends
 * `posted`, or `failed` with the reason once the schedule is used up or the target is refused.
 *
 * As for event webhooks, at most `webhooks.maxConcurrentPerWebhook` POSTs to one route and
 * `webhooks.maxConcurrentPerAccount` of one account are under way per process. A job that finds its
 * route or account at the cap waits for a slot in this process, first come first served, so a
 * backlog of one route drains at its receiver's pace (see `patience` below for how many wait, and
 * how long); one that may not wait, or waits in vain, hands its post to a new job due within
 * `webhooks.busyDelayMs`, without counting an attempt. So a route whose receiver hangs holds a few
 * of the webhook lane's slots at most. Every POST is a row of the message's post log
 * (`InboundStore.recordPostAttempt`).
 */
import { PermanentJobError, RetryJobError } from '../jobs/errors.js';
import { INBOUND_WEBHOOK_JOB, jobGiveUp, jobHandler, type MailplaneJobs } from '../jobs/kinds.js';
import type { JobHandler, JobKindOptions } from '../jobs/types.js';
import { nowNs, type Clock } from '../model/time.js';
import type { MailplaneStore, NewInboundPostAttempt } from '../store/index.js';
import { WebhookPostSlots } from '../webhook/post-slots.js';
import { RouteFlow, SLOW_POST_MS } from './route-flow.js';
import type { WebhookAttempt } from '../webhook/post.js';
import { attemptLogFields, type TimedWebhookAttempt, type WebhookSender } from '../webhook/sender.js';
import type { SecretBox } from '../crypto/secrets.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Logger } from '../logging/logger.js';
import type { MailplaneConfig } from '../mailplane-config.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface InboundWebhookJobDeps {
  readonly config: MailplaneConfig;
  readonly store: MailplaneStore;
  readonly secrets: SecretBox;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly jobs: JobQueue<MailplaneJobs>;
}

/** Characters of a failure's reason kept in the message's detail. */
const MAX_DETAIL = 500;

/** The handler of `inbound-webhook` jobs; `sender` is the instance's webhook sender. */
export function inboundWebhookJobHandlers(
  ctx: InboundWebhookJobDeps,
  sender: WebhookSender,
): Record<string, JobHandler | JobKindOptions> {
  const config = ctx.config.webhooks;
  // Routes' POSTs under way in this process, apart from the event webhooks' (a route id is no webhook id).
  const slots = new WebhookPostSlots(config);
  const flow = new RouteFlow();
  const settle = (messageId: string, status: 'posted' | 'failed', detail: string) =>
    ctx.store.inbound.setMessageStatus(messageId, status, detail.slice(0, MAX_DETAIL), nowNs(ctx.clock));
  const fail = async (messageId: string, reason: string): Promise<never> => {
    await settle(messageId, 'failed', reason);
    throw new PermanentJobError(reason);
  };

  /**
   * How long a job that finds its route or account busy waits for a slot, and unless how many jobs
   * of the account wait already: `maxConcurrentPerWebhook` wait up to `busyDelayMs` whatever the
   * receiver does; while it is not slow, `maxConcurrentPerAccount` more (the jobs claimed with them
   * in a backlog) wait up to {@link SLOW_POST_MS}, so they are served at the receiver's pace instead
   * of being put off, and a receiver that starts hanging keeps them a second at most.
   */
  const patience = (routeId: number, accountId: number, jobSignal: AbortSignal) => {
    const few = config.maxConcurrentPerWebhook;
    const patient = slots.waitingOf(accountId) < few || flow.slow(routeId);
    const waitMs = patient ? config.busyDelayMs : Math.min(SLOW_POST_MS, config.busyDelayMs);
    return {
      maxWaiting: patient ? few : few + config.maxConcurrentPerAccount,
      signal: AbortSignal.any([jobSignal, AbortSignal.timeout(waitMs)]),
    };
  };

  /** Appends an attempt to the post log; a failure to write is logged, never fails the post. */
  const log = async (attempt: NewInboundPostAttempt) => {
    try {
      await ctx.store.inbound.recordPostAttempt(attempt);
    } catch (error) {
      ctx.logger.warn('inbound: the post log could not be written', {
        messageId: attempt.messageId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  };

  const post = jobHandler(INBOUND_WEBHOOK_JOB, async (job, { signal }) => {
    const { messageId, accountId, subAccountId, routeId, body, postsBefore = 0 } = job.payload;
    // The route as it is now: a changed URL or secret applies to the posts still to be made.
    const route = await ctx.store.inbound.getRoute(subAccountId, routeId);
    if (!route || route.action !== 'webhook' || route.url === null)
      return fail(messageId, 'the route was deleted or no longer posts to a webhook');
    const slot = await slots.acquireWithin({ id: routeId, accountId }, patience(routeId, accountId, signal));
    if (!slot && signal.aborted)
      // The runner is stopping and gives the job back: a put-off copy would post the message twice.
      throw new RetryJobError('the job runner is stopping', { runAt: ctx.clock.now(), countAttempt: false });
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
    const at = nowNs(ctx.clock);
    const started = performance.now();
    const ended = flow.begin(routeId);
    let posted: WebhookAttempt | undefined;
    try {
      posted = await sender.postSigned(route.url, body, secrets, messageId);
    } finally {
      slot();
      ended(posted?.status !== undefined);
    }
    const result: TimedWebhookAttempt = { ...posted, at, durationMs: Math.round(performance.now() - started) };
    // The retry after POST n waits retryDelaysMs[n - 1].
    const posts = postsBefore + job.attempts;
    const next = result.ok || !result.retry ? undefined : config.retryDelaysMs[posts - 1];
    const runAt = next === undefined ? null : ctx.clock.now() + next;
    await log({
      messageId,
      accountId,
      subAccountId,
      routeId,
      url: route.url,
      attempt: posts,
      ...attemptLogFields(result, runAt),
    });
    if (result.ok) return void (await settle(messageId, 'posted', `posted: HTTP ${result.status}`));
    if (!result.retry) return fail(messageId, result.error);
    if (runAt === null) return fail(messageId, `gave up after ${posts} attempts: ${result.error}`);
    throw new RetryJobError(result.error, { runAt });
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
