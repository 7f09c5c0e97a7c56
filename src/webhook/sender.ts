/**
 * Posting events to webhooks, shared by the delivery jobs (src/webhook/delivery-jobs.ts) and
 * replays (src/webhook/replay.ts): each attempt is signed with the webhook's secrets of that moment
 * under the Standard Webhooks id of its event, counted, and recorded on the webhook (the failure
 * streak that disables a webhook after `disableAfterMs` without a success); a failed first attempt
 * becomes a `webhook-retry` job.
 */
import PQueue from 'p-queue';
import type { MailplaneContext } from '../context.js';
import { WEBHOOK_RETRY_JOB, type MailplaneJobs } from '../jobs/kinds.js';
import type { EnqueueJob } from '../jobs/queue.js';
import { nowNs } from '../model/time.js';
import type { WebhookRecord } from '../store/index.js';
import { postWebhook, type WebhookAttempt } from './post.js';
import { disabledReason, webhookService } from './webhooks.js';

/** One event's POST to one webhook. */
export interface WebhookPost {
  webhook: WebhookRecord;
  /** The event's id: the `webhook-id`, the same on every retry and replay. */
  eventId: string;
  body: string;
  /** Set when the POST belongs to a replay. */
  replayId?: string;
}

/** What {@link webhookSender} gives its callers. */
export interface WebhookSender {
  /** One attempt, recorded on the webhook (a webhook this failure disabled is logged once). */
  attempt(post: WebhookPost): Promise<WebhookAttempt>;
  /** First attempts of `posts`, `concurrency` at a time; the failed ones are queued as retries. */
  postAll(posts: readonly WebhookPost[]): Promise<void>;
}

/** The {@link WebhookSender} of a context. */
export function webhookSender(ctx: MailplaneContext): WebhookSender {
  const config = ctx.config.webhooks;
  const disableAfter = BigInt(config.disableAfterMs) * 1_000_000n;

  /** Writes to the webhook only when its streak changes (a success while failing, a first or a decisive failure). */
  const record = async (webhook: WebhookRecord, result: WebhookAttempt) => {
    const at = nowNs(ctx.clock);
    if (result.ok && webhook.failingSince === null) return;
    if (!result.ok && webhook.failingSince !== null && webhook.failingSince > at - disableAfter) return;
    const reason = disabledReason(webhook.failingSince ?? at, config.disableAfterMs, result.ok ? '' : result.error);
    const disabled = await ctx.store.webhooks.recordDeliveryOutcome(webhook.accountId, webhook.id, { ok: result.ok, at, disableAfter, reason });
    if (disabled) {
      ctx.logger.warn('webhook: disabled after failing without a success', {
        webhookId: disabled.id,
        accountId: disabled.accountId,
        url: disabled.url,
        disabledReason: disabled.disabledReason,
      });
    }
  };

  const attempt = async (post: WebhookPost): Promise<WebhookAttempt> => {
    const { webhook } = post;
    const result = await postWebhook(webhook.url, post.body, webhookService.signingSecrets(ctx, webhook), {
      resolver: ctx.resolver,
      allowPrivateTargets: config.allowPrivateTargets,
      timeoutMs: config.timeoutMs,
      nowMs: ctx.clock.now(),
      messageId: post.eventId,
      ...(post.replayId !== undefined && { replayId: post.replayId }),
    });
    ctx.metrics.webhookDeliveries.inc({ result: result.ok ? 'delivered' : result.retry ? 'failed' : 'refused' });
    if (!result.ok && !result.retry) {
      ctx.logger.warn('webhook: delivery refused, not retried', { webhookId: webhook.id, accountId: webhook.accountId, eventId: post.eventId, error: result.error });
    }
    await record(webhook, result);
    return result;
  };

  const postAll = async (posts: readonly WebhookPost[]): Promise<void> => {
    const queue = new PQueue({ concurrency: config.concurrency });
    const retries: EnqueueJob<MailplaneJobs>[] = [];
    await Promise.all(
      posts.map((post) =>
        queue.add(async () => {
          const result = await attempt(post);
          if (result.ok || !result.retry) return;
          const { webhook, eventId, body, replayId } = post;
          const payload = { accountId: webhook.accountId, webhookId: webhook.id, eventId, body, ...(replayId !== undefined && { replayId }) };
          const dedupeKey = `${webhook.id}:${eventId}${replayId === undefined ? '' : `:${replayId}`}`;
          retries.push({ kind: WEBHOOK_RETRY_JOB, payload, runAt: ctx.clock.now() + config.retryDelaysMs[0]!, dedupeKey });
        }),
      ),
    );
    // If this fails, the whole job runs again: some events are then posted twice (at least once).
    if (retries.length > 0 && config.retryDelaysMs.length > 0) await ctx.jobs.enqueue(retries);
  };

  return { attempt, postAll };
}
