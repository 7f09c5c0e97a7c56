/**
 * Webhook replay (docs/webhooks.md): `POST /account/webhook/{id}/replay` queues the stored events
 * of a time range again, the ones the activity API reads (`MessageStore.listActivityEvents`), for
 * the webhook's switched-on kinds. A replay runs as a chain of durable `webhook-replay` jobs, each
 * posting one bounded batch (`replayBatchSize`, newest first) and queuing the next; a failed POST
 * is retried like any other. One replay runs per webhook at a time (a claim on the webhook, renewed
 * by each batch, taken over when a dead replay has not renewed it for {@link REPLAY_STALE_MS}),
 * and a webhook may start `replaysPerHour` replays per clock hour. A batch that finds its webhook
 * or its account at its cap of POSTs under way (src/webhook/post-slots.ts) is put off without
 * counting an attempt.
 */
import { z } from 'zod';
import { RateLimitedError, ValidationError } from '../errors.js';
import { RetryJobError } from '../jobs/errors.js';
import { jobHandler, WEBHOOK_REPLAY_JOB, type MailplaneJobs } from '../jobs/kinds.js';
import type { JobHandler } from '../jobs/types.js';
import { msToNs, nowNs } from '../model/time.js';
import { epochNsSchema } from '../model/wire-schemas.js';
import { EventType, type WebhookRecord } from '../store/index.js';
import { webhookPayload } from './payload.js';
import type { WebhookPost, WebhookSender } from './sender.js';
import { togglesForEvent } from '../lifecycle/webhook-toggles.js';
import { webhookService, type WebhooksDeps } from './webhooks.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Logger } from '../logging/logger.js';
import type { IdGenerator } from '../model/ids.js';

/** What this module uses of the instance: what it calls uses ({@link WebhooksDeps}), and the fields below. */
export interface ReplayDeps extends WebhooksDeps {
  readonly ids: IdGenerator;
  readonly logger: Logger;
  readonly jobs: JobQueue<MailplaneJobs>;
}

/** A replay whose batches have not renewed its claim for this long is considered dead. */
export const REPLAY_STALE_MS = 10 * 60_000;

const DAY_NS = 86_400_000_000_000n;
const HOUR_MS = 3_600_000;

/** What a replay request asks for: `[from, to)` in ns, and the event types (all when absent). */
export interface ReplayRequest {
  from: bigint;
  to: bigint;
  eventTypes?: readonly EventType[];
}

/** A queued replay, as {@link startReplay} returns it ({@link queuedReplayToWire} makes the API answer of it). */
export interface QueuedReplay {
  id: string;
  webhookId: number;
  from: bigint;
  to: bigint;
  eventTypes: EventType[] | null;
  requestedAt: bigint;
}

/** The wire shape of {@link queuedReplayToWire}: the replay, `queued` (its events go out later, as jobs). */
export const queuedReplayWireSchema = z.object({
  id: z.string(),
  webhookId: z.int(),
  from: epochNsSchema,
  to: epochNsSchema,
  eventTypes: z.array(z.enum(EventType)).nullable(),
  requestedAt: epochNsSchema,
  status: z.literal('queued'),
});

/** A just started replay as `POST /account/webhook/{id}/replay` answers it (with status 202). */
export function queuedReplayToWire(replay: QueuedReplay): z.output<typeof queuedReplayWireSchema> {
  return { ...replay, status: 'queued' };
}

/** Refuses a range that is inverted, empty or longer than the retention period (whose events are gone anyway). */
function checkRange(ctx: ReplayDeps, request: ReplayRequest): void {
  if (request.to <= request.from) {
    throw new ValidationError(
      'the replay range is empty or inverted: `to` must be after `from`',
      [{ path: 'to', message: 'must be after from' }],
      'REPLAY_RANGE_INVERTED',
    );
  }
  const days = ctx.config.retention.days;
  if (days > 0 && request.to - request.from > BigInt(days) * DAY_NS) {
    throw new ValidationError(
      `the replay range is longer than the retention period of ${days} days, beyond which no events are kept`,
      [{ path: 'to', message: `at most ${days} days after from` }],
      'REPLAY_RANGE_TOO_LONG',
    );
  }
}

/** Starts a replay of `request` for the account's webhook `id` (see the module comment). */
export async function startReplay(
  ctx: ReplayDeps,
  accountId: number,
  id: number | null,
  request: ReplayRequest,
): Promise<QueuedReplay> {
  const webhook = await webhookService.get(ctx, accountId, id);
  checkRange(ctx, request);
  if (!webhook.enabled) {
    throw new ValidationError(
      'the webhook is disabled: enable it before replaying events to it',
      [{ path: 'webhook', message: 'disabled' }],
      'WEBHOOK_DISABLED',
    );
  }
  const now = ctx.clock.now();
  const windowStart = Math.floor(now / HOUR_MS) * HOUR_MS;
  const retryAfter = Math.max(1, Math.ceil((windowStart + HOUR_MS - now) / 1000));
  const hourly = { bucket: `webhook:${webhook.id}:replays`, windowStart, limit: ctx.config.webhooks.replaysPerHour };
  const limited = () =>
    new RateLimitedError(
      `this webhook may start ${hourly.limit} replays an hour; retry in ${retryAfter} s`,
      retryAfter,
      'REPLAY_RATE_LIMITED',
    );
  // Read first (cost 0): a refused request must not take the claim.
  const [used] = await ctx.store.rateLimits.hit([{ ...hourly, cost: 0 }]);
  if (used!.used >= hourly.limit) throw limited();
  const replayId = ctx.ids.uuid();
  const at = nowNs(ctx.clock);
  if (
    !(await ctx.store.webhooks.claimReplay(accountId, webhook.id, {
      replayId,
      at,
      staleBefore: at - msToNs(REPLAY_STALE_MS),
    }))
  ) {
    throw new RateLimitedError(
      'a replay is already running for this webhook; retry when it has ended',
      60,
      'REPLAY_IN_PROGRESS',
    );
  }
  try {
    const [counted] = await ctx.store.rateLimits.hit([{ ...hourly, cost: 1 }]);
    if (!counted!.admitted) throw limited();
    const eventTypes =
      request.eventTypes && request.eventTypes.length > 0 ? [...new Set(request.eventTypes)].sort() : undefined;
    const payload = {
      accountId,
      webhookId: webhook.id,
      replayId,
      from: request.from.toString(),
      to: request.to.toString(),
      requestedAt: at.toString(),
      ...(eventTypes && { eventTypes }),
    };
    await ctx.jobs.enqueue([{ kind: WEBHOOK_REPLAY_JOB, payload, dedupeKey: `${replayId}:start` }]);
    return {
      id: replayId,
      webhookId: webhook.id,
      from: request.from,
      to: request.to,
      eventTypes: eventTypes ?? null,
      requestedAt: at,
    };
  } catch (error) {
    await ctx.store.webhooks.releaseReplay(accountId, webhook.id, replayId);
    throw error;
  }
}

/** Whether the webhook wants an event of this type and metadata at all (one of its switches is on). */
const wants = (webhook: WebhookRecord, type: number, metadata: Record<string, unknown>) =>
  togglesForEvent(type, metadata).some((toggle) => webhook[toggle]);

/** The handler of {@link WEBHOOK_REPLAY_JOB}: one batch, then the next job or the end of the claim. */
export function replayJobHandler(ctx: ReplayDeps, sender: WebhookSender): JobHandler {
  return jobHandler(WEBHOOK_REPLAY_JOB, async (job) => {
    const { accountId, webhookId, replayId, from, to, eventTypes, requestedAt, after } = job.payload;
    const webhook = await ctx.store.webhooks.get(accountId, webhookId);
    if (!webhook) return;
    // Paused or disabled since it was asked for: the replay ends.
    if (!webhook.enabled) return ctx.store.webhooks.releaseReplay(accountId, webhookId, replayId);
    const at = nowNs(ctx.clock);
    // Another replay took over a claim this one let go stale: this one ends.
    if (
      !(await ctx.store.webhooks.claimReplay(accountId, webhookId, {
        replayId,
        at,
        staleBefore: at - msToNs(REPLAY_STALE_MS),
      }))
    )
      return;
    const limit = ctx.config.webhooks.replayBatchSize;
    const page = await ctx.store.messages.listActivityEvents(
      { accountId, from: BigInt(from), to: BigInt(to), ...(eventTypes && { eventTypes }) },
      { limit, ...(after && { after: { at: BigInt(after.at), id: after.id } }) },
    );
    const mark = { id: replayId, requestedAt: BigInt(requestedAt) };
    const posts: WebhookPost[] = page
      .filter(({ event }) => wants(webhook, event.type, event.metadata))
      .map(({ event, message, batch }) => ({
        webhook,
        eventId: event.id,
        body: webhookPayload(event, message, batch, mark),
        replayId,
      }));
    // The account has its most POSTs under way: this batch runs again later, its claim renewed then.
    if ((await sender.postAll(posts)).busy.length > 0) {
      throw new RetryJobError('the webhook or its account has its most POSTs under way', {
        runAt: ctx.clock.now() + ctx.config.webhooks.busyDelayMs,
        countAttempt: false,
      });
    }
    const last = page.at(-1);
    if (page.length < limit || !last) {
      ctx.logger.info('webhook: replay finished', { webhookId, accountId, replayId });
      return ctx.store.webhooks.releaseReplay(accountId, webhookId, replayId);
    }
    const next = { at: last.event.created.toString(), id: last.event.id };
    await ctx.jobs.enqueue([
      {
        kind: WEBHOOK_REPLAY_JOB,
        payload: { ...job.payload, after: next },
        dedupeKey: `${replayId}:${next.at}:${next.id}`,
      },
    ]);
  });
}
