/**
 * Webhook delivery. A `webhook-events` job (enqueued by the outbox in the transaction that
 * recorded its events, src/lifecycle/webhook-outbox.ts) posts each event to every enabled webhook of its
 * account that has the event's switch on, as they are when the job runs. A POST that fails is
 * retried on its own, as a `webhook-retry` job holding the exact body, on the schedule of
 * `WebhookDeliveryConfig.retryDelaysMs`; each attempt is signed when it is made, with the
 * webhook's secret of that moment. When the retries run out the job ends dead, with the last
 * error kept. Delivery is at least once: receivers deduplicate by `webhook-id` (the event's id,
 * `event.eventID`). Replays of stored events run as `webhook-replay` jobs (src/webhook/replay.ts).
 *
 * No job waits behind a receiver that hangs: a webhook with `maxConcurrentPerWebhook` POSTs under
 * way, or whose account has `maxConcurrentPerAccount` (src/webhook/post-slots.ts), gets its events
 * of a `webhook-events` job moved into a new job for that webhook alone, due `busyDelayMs` later,
 * and a retry put off as long without counting an attempt.
 * Both are written before the job completes, so a crash loses nothing (the job runs again).
 */
import { PermanentJobError, RetryJobError } from '../jobs/errors.js';
import {
  jobHandler,
  WEBHOOK_EVENTS_JOB,
  WEBHOOK_REPLAY_JOB,
  WEBHOOK_RETRY_JOB,
  type MailplaneJobs,
} from '../jobs/kinds.js';
import type { EnqueueJob } from '../jobs/queue.js';
import type { JobHandler, JobKindOptions } from '../jobs/types.js';
import type { MessageRecord, SendBatchRecord, WebhookRecord } from '../store/index.js';
import { fromOutboxEvent } from '../lifecycle/webhook-outbox.js';
import { webhookPayload } from './payload.js';
import { replayJobHandler, type ReplayDeps } from './replay.js';
import { deliveryLogEntry, type WebhookPost, type WebhookSender } from './sender.js';
import { togglesForEvent } from '../lifecycle/webhook-toggles.js';

/** What this module uses of the instance: what it calls uses, {@link ReplayDeps}, and nothing more. */
export type WebhookJobsDeps = ReplayDeps;

/** The webhook delivery job handlers (webhook-events, webhook-retry, webhook-replay), posting through `sender`. */
export function webhookJobHandlers(
  ctx: WebhookJobsDeps,
  sender: WebhookSender,
): Record<string, JobHandler | JobKindOptions> {
  const config = ctx.config.webhooks;

  const postEvents = jobHandler(WEBHOOK_EVENTS_JOB, async (job) => {
    const { events, webhookIds } = job.payload;
    const only = webhookIds && new Set(webhookIds);
    const hooks = new Map<string, Promise<WebhookRecord[]>>();
    const messages = new Map<string, Promise<{ message: MessageRecord; batch: SendBatchRecord } | null>>();
    const memo = <T>(cache: Map<string, Promise<T>>, key: string, load: () => Promise<T>) => {
      let hit = cache.get(key);
      if (!hit) cache.set(key, (hit = load()));
      return hit;
    };
    const posts: WebhookPost[] = [];
    for (const stored of events) {
      const event = fromOutboxEvent(stored);
      // A first open reaches `opened` and `uniqueOpen` webhooks, each once.
      const targets = new Map<number, WebhookRecord>();
      for (const toggle of togglesForEvent(event.type, event.metadata)) {
        for (const webhook of await memo(hooks, `${event.accountId}:${toggle}`, () =>
          ctx.store.webhooks.listEnabledForEvent(event.accountId, toggle),
        )) {
          if (!only || only.has(webhook.id)) targets.set(webhook.id, webhook);
        }
      }
      if (targets.size === 0) continue;
      const found = await memo(messages, event.messageId, () => ctx.store.messages.getForDelivery(event.messageId));
      if (!found || found.message.accountId !== event.accountId) continue;
      const body = webhookPayload(event, found.message, found.batch);
      for (const webhook of targets.values()) posts.push({ webhook, eventId: event.id, body });
    }
    const { busy } = await sender.postAll(posts);
    // Each busy webhook's events in a job of its own, so the next try of one does not wait on another.
    const putOff: EnqueueJob<MailplaneJobs>[] = busy.map(({ accountId, webhookId }) => ({
      kind: WEBHOOK_EVENTS_JOB,
      payload: { events: events.filter((event) => event.accountId === accountId), webhookIds: [webhookId] },
      runAt: ctx.clock.now() + config.busyDelayMs,
      dedupeKey: `webhook-busy:${job.id}:${webhookId}`,
    }));
    if (putOff.length > 0) await ctx.jobs.enqueue(putOff);
  });

  const retryPost = jobHandler(WEBHOOK_RETRY_JOB, async (job) => {
    const { accountId, webhookId, eventId, body, replayId } = job.payload;
    const webhook = await ctx.store.webhooks.get(accountId, webhookId);
    // Deleted, paused or disabled since: its events are no longer wanted.
    if (!webhook || !webhook.enabled) return;
    const post: WebhookPost = { webhook, eventId, body, ...(replayId !== undefined && { replayId }) };
    const result = await sender.attempt(post);
    if (!result)
      throw new RetryJobError('the webhook or its account has its most POSTs under way', {
        runAt: ctx.clock.now() + config.busyDelayMs,
        countAttempt: false,
      });
    // job.attempts counts this run: the retry with index job.attempts - 1 has just failed.
    const next = result.ok || !result.retry ? undefined : config.retryDelaysMs[job.attempts];
    const runAt = next === undefined ? null : ctx.clock.now() + next;
    // The first attempt was number 1, in the job that queued this one.
    await sender.log([deliveryLogEntry(post, job.attempts + 1, result, runAt)]);
    if (result.ok || !result.retry) return;
    if (next === undefined) throw new PermanentJobError(`gave up after ${job.attempts + 1} attempts: ${result.error}`);
    throw new RetryJobError(result.error, { runAt: runAt ?? ctx.clock.now() + next });
  });

  return {
    [WEBHOOK_EVENTS_JOB]: postEvents,
    // The runner must not give up before the schedule does.
    [WEBHOOK_RETRY_JOB]: { handler: retryPost, maxAttempts: config.retryDelaysMs.length + 1 },
    [WEBHOOK_REPLAY_JOB]: replayJobHandler(ctx, sender),
  };
}
