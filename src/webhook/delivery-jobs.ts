/**
 * Webhook delivery. A `webhook-events` job (enqueued by the outbox in the transaction that
 * recorded its events, src/webhook/outbox.ts) posts each event to every enabled webhook of its
 * account that has the event's switch on, as they are when the job runs. A POST that fails is
 * retried on its own, as a `webhook-retry` job holding the exact body, on the schedule of
 * `WebhookDeliveryConfig.retryDelaysMs`; each attempt is signed when it is made, with the
 * webhook's secret of that moment. When the retries run out the job ends dead, with the last
 * error kept. Delivery is at least once: receivers deduplicate by `event.eventID`.
 */
import PQueue from 'p-queue';
import type { MailplaneContext } from '../context.js';
import { PermanentJobError, RetryJobError } from '../jobs/errors.js';
import { jobHandler, WEBHOOK_EVENTS_JOB, WEBHOOK_RETRY_JOB, type MailplaneJobs } from '../jobs/kinds.js';
import type { EnqueueJob } from '../jobs/queue.js';
import type { JobHandler, JobKindOptions } from '../jobs/types.js';
import type { MessageRecord, SendBatchRecord, WebhookRecord } from '../store/index.js';
import { fromOutboxEvent } from './outbox.js';
import { webhookPayload } from './payload.js';
import { postWebhook, type WebhookAttempt } from './post.js';
import { togglesForEvent } from './toggles.js';
import { webhookService } from './webhooks.js';

/** The webhook delivery job handlers (webhook-events, webhook-retry). */
export function webhookJobHandlers(ctx: MailplaneContext): Record<string, JobHandler | JobKindOptions> {
  const config = ctx.config.webhooks;

  const attempt = async (webhook: WebhookRecord, body: string): Promise<WebhookAttempt> => {
    const result = await postWebhook(webhook.url, body, webhookService.signingSecret(ctx, webhook), {
      resolver: ctx.resolver,
      allowPrivateTargets: config.allowPrivateTargets,
      timeoutMs: config.timeoutMs,
      nowMs: ctx.clock.now(),
    });
    ctx.metrics.webhookDeliveries.inc({ result: result.ok ? 'delivered' : result.retry ? 'failed' : 'refused' });
    return result;
  };

  const refused = (webhook: WebhookRecord, eventId: string, error: string) =>
    ctx.logger.warn('webhook: delivery refused, not retried', { webhookId: webhook.id, accountId: webhook.accountId, eventId, error });

  const postEvents = jobHandler(WEBHOOK_EVENTS_JOB, async (job) => {
    const { events } = job.payload;
    const hooks = new Map<string, Promise<WebhookRecord[]>>();
    const messages = new Map<string, Promise<{ message: MessageRecord; batch: SendBatchRecord } | null>>();
    const memo = <T>(cache: Map<string, Promise<T>>, key: string, load: () => Promise<T>) => {
      let hit = cache.get(key);
      if (!hit) cache.set(key, (hit = load()));
      return hit;
    };
    const queue = new PQueue({ concurrency: config.concurrency });
    const retries: EnqueueJob<MailplaneJobs>[] = [];
    const posts: Array<Promise<void>> = [];
    for (const stored of events) {
      const event = fromOutboxEvent(stored);
      // A first open reaches `opened` and `uniqueOpen` webhooks, each once.
      const targets = new Map<number, WebhookRecord>();
      for (const toggle of togglesForEvent(event.type, event.metadata)) {
        for (const webhook of await memo(hooks, `${event.accountId}:${toggle}`, () => ctx.store.webhooks.listEnabledForEvent(event.accountId, toggle))) {
          targets.set(webhook.id, webhook);
        }
      }
      if (targets.size === 0) continue;
      const found = await memo(messages, event.messageId, () => ctx.store.messages.getForDelivery(event.messageId));
      if (!found || found.message.accountId !== event.accountId) continue;
      const body = webhookPayload(event, found.message, found.batch);
      for (const webhook of targets.values()) {
        posts.push(
          queue.add(async () => {
            const result = await attempt(webhook, body);
            if (result.ok) return;
            if (!result.retry) return refused(webhook, event.id, result.error);
            const payload = { accountId: webhook.accountId, webhookId: webhook.id, eventId: event.id, body };
            retries.push({ kind: WEBHOOK_RETRY_JOB, payload, runAt: ctx.clock.now() + config.retryDelaysMs[0]!, dedupeKey: `${webhook.id}:${event.id}` });
          }),
        );
      }
    }
    await Promise.all(posts);
    // If this fails, the whole job runs again: some events are then posted twice (at least once).
    if (retries.length > 0 && config.retryDelaysMs.length > 0) await ctx.jobs.enqueue(retries);
  });

  const retryPost = jobHandler(WEBHOOK_RETRY_JOB, async (job) => {
    const { accountId, webhookId, eventId, body } = job.payload;
    const webhook = await ctx.store.webhooks.get(accountId, webhookId);
    // Deleted or paused since: its events are no longer wanted.
    if (!webhook || !webhook.enabled) return;
    const result = await attempt(webhook, body);
    if (result.ok) return;
    if (!result.retry) return refused(webhook, eventId, result.error);
    // job.attempts counts this run: the retry with index job.attempts - 1 has just failed.
    const next = config.retryDelaysMs[job.attempts];
    if (next === undefined) throw new PermanentJobError(`gave up after ${job.attempts + 1} attempts: ${result.error}`);
    throw new RetryJobError(result.error, { runAt: ctx.clock.now() + next });
  });

  return {
    [WEBHOOK_EVENTS_JOB]: postEvents,
    // The runner must not give up before the schedule does.
    [WEBHOOK_RETRY_JOB]: { handler: retryPost, maxAttempts: config.retryDelaysMs.length + 1 },
  };
}
