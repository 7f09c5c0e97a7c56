/**
 * Posting events to webhooks, shared by the delivery jobs (src/webhook/delivery-jobs.ts) and
 * replays (src/webhook/replay.ts): each attempt is signed with the webhook's secrets of that moment
 * under the Standard Webhooks id of its event, counted, and recorded on the webhook (the failure
 * streak that disables a webhook after `disableAfterMs` without a success); a failed first attempt
 * becomes a `webhook-retry` job. Every attempt is also a row of the delivery log
 * (`WebhookStore.recordDeliveries`): a job's first attempts in one insert, a retry in one.
 *
 * The sender owns this instance's connections to receivers and the bulkheads per webhook and per
 * account (src/webhook/post-slots.ts): a webhook with `maxConcurrentPerWebhook` POSTs under way, or
 * an account with `maxConcurrentPerAccount`, gets no more until one ends; the caller puts its posts
 * off instead of waiting (see the job handlers).
 */
import PQueue from 'p-queue';
import { WEBHOOK_RETRY_JOB, type MailplaneJobs } from '../jobs/kinds.js';
import type { EnqueueJob, JobQueue } from '../jobs/queue.js';
import { msToNs, nowNs, type EpochNs } from '../model/time.js';
import type { NewWebhookDelivery, WebhookRecord } from '../store/index.js';
import { WebhookPostSlots, type ReleaseSlot } from './post-slots.js';
import { postWebhook, WebhookAgents, type PostWebhookOptions, type WebhookAttempt } from './post.js';
import { disabledReason, webhookService, type WebhooksDeps } from './webhooks.js';
import type { DnsResolver } from '../dns/resolver.js';
import type { Logger } from '../logging/logger.js';
import type { MailplaneMetrics } from '../metrics/metrics.js';

/** What this module uses of the instance: what it calls uses ({@link WebhooksDeps}), and the fields below. */
export interface WebhookSenderDeps extends WebhooksDeps {
  readonly logger: Logger;
  readonly metrics: MailplaneMetrics;
  readonly jobs: JobQueue<MailplaneJobs>;
  readonly resolver: DnsResolver;
}

/** One event's POST to one webhook. */
export interface WebhookPost {
  webhook: WebhookRecord;
  /** The event's id: the `webhook-id`, the same on every retry and replay. */
  eventId: string;
  body: string;
  /** Set when the POST belongs to a replay. */
  replayId?: string;
}

/** An attempt's result with when it started and how long it took, for the delivery log. */
export type TimedWebhookAttempt = WebhookAttempt & { at: EpochNs; durationMs: number };

/** Longest error text kept in the delivery log: enough for a DNS or socket error, never a body. */
const MAX_LOGGED_ERROR = 300;

/**
 * The delivery log row of one attempt. `retryAtMs`: when the retry queued for a failure is due,
 * `null` when none is (the retries ran out: `gave-up`; a failure that is not retried: `failed`).
 */
export function deliveryLogEntry(
  post: WebhookPost,
  attempt: number,
  result: TimedWebhookAttempt,
  retryAtMs: number | null,
): NewWebhookDelivery {
  return {
    accountId: post.webhook.accountId,
    webhookId: post.webhook.id,
    eventId: post.eventId,
    replayId: post.replayId ?? null,
    attempt,
    ...attemptLogFields(result, retryAtMs),
  };
}

/**
 * What a log row says of one attempt, whatever was posted (an event, a received message):
 * `retryAtMs` as {@link deliveryLogEntry}'s.
 */
export function attemptLogFields(
  result: TimedWebhookAttempt,
  retryAtMs: number | null,
): Pick<NewWebhookDelivery, 'result' | 'status' | 'error' | 'durationMs' | 'created' | 'nextRetryAt'> {
  const outcome = result.ok ? 'delivered' : !result.retry ? 'failed' : retryAtMs !== null ? 'will-retry' : 'gave-up';
  return {
    result: outcome,
    status: result.status ?? null,
    error: result.ok ? null : result.error.slice(0, MAX_LOGGED_ERROR),
    durationMs: result.durationMs,
    created: result.at,
    nextRetryAt: outcome === 'will-retry' && retryAtMs !== null ? msToNs(retryAtMs) : null,
  };
}

/** A webhook whose posts were not attempted because it, or its account, had its most POSTs under way. */
export interface BusyWebhook {
  accountId: number;
  webhookId: number;
}

/** What {@link webhookSender} gives its callers. */
export interface WebhookSender {
  /**
   * One attempt, recorded on the webhook (a webhook this failure disabled is logged once); `null`,
   * without a POST, when the webhook or its account has its most POSTs under way.
   */
  attempt(post: WebhookPost): Promise<TimedWebhookAttempt | null>;
  /** Writes attempts to the delivery log; a failure to write is logged, never fails the delivery. */
  log(entries: readonly NewWebhookDelivery[]): Promise<void>;
  /**
   * First attempts of `posts`, `concurrency` at a time and each webhook's in parallel under its caps;
   * the failed ones are queued as retries. Answers the webhooks that were at their cap (or whose
   * account was) when their turn came: none of their posts was attempted, and the caller puts them off.
   */
  postAll(posts: readonly WebhookPost[]): Promise<{ busy: BusyWebhook[] }>;
  /**
   * One unsigned POST of `body` to `url`, a receiver that is not a webhook resource (an alert rule's
   * Slack URL): the same target check, pinned connection and deadlines, nothing recorded.
   */
  postUnsigned(url: string, body: string): Promise<WebhookAttempt>;
  /**
   * One POST of `body` to `url` signed with `secrets` (Standard Webhooks, `webhook-id` `messageId`),
   * a receiver that is not a webhook resource (an inbound route's URL): as {@link WebhookSender.postUnsigned} otherwise.
   */
  postSigned(url: string, body: string, secrets: readonly string[], messageId: string): Promise<WebhookAttempt>;
  /** Destroys this sender's connections (kept alive, or reading a body); call once its jobs have stopped. */
  close(): void;
}

/** The {@link WebhookSender} of a context: one per instance, closed with it. */
export function webhookSender(ctx: WebhookSenderDeps): WebhookSender {
  const config = ctx.config.webhooks;
  const disableAfter = BigInt(config.disableAfterMs) * 1_000_000n;
  const agents = new WebhookAgents();
  const slots = new WebhookPostSlots(config);

  /** Writes to the webhook only when its streak changes (a success while failing, a first or a decisive failure). */
  const record = async (webhook: WebhookRecord, result: WebhookAttempt) => {
    const at = nowNs(ctx.clock);
    if (result.ok && webhook.failingSince === null) return;
    if (!result.ok && webhook.failingSince !== null && webhook.failingSince > at - disableAfter) return;
    const reason = disabledReason(webhook.failingSince ?? at, config.disableAfterMs, result.ok ? '' : result.error);
    const disabled = await ctx.store.webhooks.recordDeliveryOutcome(webhook.accountId, webhook.id, {
      ok: result.ok,
      at,
      disableAfter,
      reason,
    });
    if (disabled) {
      ctx.logger.warn('webhook: disabled after failing without a success', {
        webhookId: disabled.id,
        accountId: disabled.accountId,
        url: disabled.url,
        disabledReason: disabled.disabledReason,
      });
    }
  };

  /** The options of one POST made now: this sender's connections, the configured target rule and deadlines. */
  const postOptions = (messageId: string): PostWebhookOptions => ({
    resolver: ctx.resolver,
    allowPrivateTargets: config.allowPrivateTargets,
    agents,
    timeoutMs: config.timeoutMs,
    connectTimeoutMs: config.connectTimeoutMs,
    bodyTimeoutMs: config.bodyTimeoutMs,
    nowMs: ctx.clock.now(),
    messageId,
  });

  /** One attempt in a slot of its webhook and account, given back as soon as the POST is decided. */
  const attemptInSlot = async (post: WebhookPost, slot: ReleaseSlot): Promise<TimedWebhookAttempt> => {
    const { webhook } = post;
    const at = nowNs(ctx.clock);
    const started = performance.now();
    let posted: WebhookAttempt;
    try {
      posted = await postWebhook(webhook.url, post.body, webhookService.signingSecrets(ctx, webhook), {
        ...postOptions(post.eventId),
        ...(post.replayId !== undefined && { replayId: post.replayId }),
      });
    } finally {
      slot();
    }
    const result: TimedWebhookAttempt = { ...posted, at, durationMs: Math.round(performance.now() - started) };
    ctx.metrics.webhookDeliveries.inc({ result: result.ok ? 'delivered' : result.retry ? 'failed' : 'refused' });
    if (!result.ok && !result.retry) {
      ctx.logger.warn('webhook: delivery refused, not retried', {
        webhookId: webhook.id,
        accountId: webhook.accountId,
        eventId: post.eventId,
        error: result.error,
      });
    }
    await record(webhook, result);
    return result;
  };

  const attempt = async (post: WebhookPost): Promise<TimedWebhookAttempt | null> => {
    const slot = slots.tryAcquire(post.webhook);
    return slot ? attemptInSlot(post, slot) : null;
  };

  const log = async (entries: readonly NewWebhookDelivery[]): Promise<void> => {
    try {
      await ctx.store.webhooks.recordDeliveries(entries);
    } catch (error) {
      // The log is for people reading it; the events were posted whatever it says.
      ctx.logger.warn('webhook: the delivery log could not be written', {
        attempts: entries.length,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  };

  const postAll = async (posts: readonly WebhookPost[]): Promise<{ busy: BusyWebhook[] }> => {
    const jobSlots = new PQueue({ concurrency: config.concurrency });
    const retries: EnqueueJob<MailplaneJobs>[] = [];
    const entries: NewWebhookDelivery[] = [];
    const busy: BusyWebhook[] = [];
    const firstDelay = config.retryDelaysMs[0];
    const postOne = async (post: WebhookPost, slot: ReleaseSlot) => {
      const result = await attemptInSlot(post, slot);
      const runAt = !result.ok && result.retry && firstDelay !== undefined ? ctx.clock.now() + firstDelay : null;
      entries.push(deliveryLogEntry(post, 1, result, runAt));
      if (runAt === null) return;
      const { webhook, eventId, body, replayId } = post;
      const payload = {
        accountId: webhook.accountId,
        webhookId: webhook.id,
        eventId,
        body,
        ...(replayId !== undefined && { replayId }),
      };
      const dedupeKey = `${webhook.id}:${eventId}${replayId === undefined ? '' : `:${replayId}`}`;
      retries.push({ kind: WEBHOOK_RETRY_JOB, payload, runAt, dedupeKey });
    };
    const byWebhook = new Map<number, WebhookPost[]>();
    for (const post of posts) {
      const group = byWebhook.get(post.webhook.id);
      if (group) group.push(post);
      else byWebhook.set(post.webhook.id, [post]);
    }
    await Promise.all(
      [...byWebhook.values()].map(async (group) => {
        const { webhook } = group[0]!;
        // Only a job already holding one of the webhook's slots waits for more: at most
        // maxConcurrentPerWebhook jobs wait on a webhook, behind its own bounded POSTs.
        const first = slots.tryAcquire(webhook);
        if (!first) return void busy.push({ accountId: webhook.accountId, webhookId: webhook.id });
        await Promise.all(
          group.map(async (post, index) => {
            // The webhook's slot is taken before the job's, so a job slot is only ever held by a running POST.
            const slot = index === 0 ? first : await slots.acquire(webhook);
            await jobSlots.add(() => postOne(post, slot));
          }),
        );
      }),
    );
    await log(entries);
    // If this fails, the whole job runs again: some events are then posted twice (at least once).
    if (retries.length > 0) await ctx.jobs.enqueue(retries);
    return { busy };
  };

  const postUnsigned = (url: string, body: string): Promise<WebhookAttempt> =>
    postWebhook(url, body, [], postOptions(''));

  const postSigned = (url: string, body: string, secrets: readonly string[], messageId: string) =>
    postWebhook(url, body, secrets, postOptions(messageId));

  return { attempt, log, postAll, postUnsigned, postSigned, close: () => agents.close() };
}
