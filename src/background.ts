import type { MailplaneContext } from './context.js';
import { deliveryJobHandlers } from './delivery/jobs.js';
import type { DeliveryService } from './delivery/service.js';
import { domainVerificationJobHandlers } from './domain/verification-jobs.js';
import { warmupJobHandlers } from './warmup/jobs.js';
import type { JobHandler, JobKindOptions } from './jobs/types.js';
import { webhookJobHandlers } from './webhook/delivery-jobs.js';
import type { WebhookSender } from './webhook/sender.js';
import { retentionJobHandlers } from './retention/jobs.js';
import { reputationJobHandlers } from './alerts/evaluation-job.js';
import { scheduledJobHandlers } from './scheduling/scheduled-jobs.js';
import { INCIDENT_EMAIL_JOB } from './jobs/kinds.js';
import { incidentNotifyJobHandlers } from './alerts/notify-jobs.js';
import { inboundWebhookJobHandlers } from './inbound/webhook-job.js';
import { inboundForwardJobHandlers } from './inbound/forward-job.js';

/**
 * Every kind of background job this instance runs, keyed by job kind. Each capability contributes
 * its handlers here (delivery, DNS re-checks, webhook deliveries, warmup), and delivery and webhooks
 * run in lanes of their own. `delivery` and `webhookSender` are the instance's services, closed with
 * it: delivery owns its caches and DKIM signing threads, the sender the connections to webhook
 * receivers and the per-account cap on their POSTs.
 */
export function backgroundJobHandlers(
  ctx: MailplaneContext,
  { delivery, webhookSender }: { delivery: DeliveryService; webhookSender: WebhookSender },
): Record<string, JobHandler | JobKindOptions> {
  return {
    ...inLane(DELIVERY_LANE, { ...deliveryJobHandlers(ctx, delivery), ...scheduledJobHandlers(ctx) }),
    ...inLane(WEBHOOK_LANE, webhookJobHandlers(ctx, webhookSender)),
    ...inLane(WEBHOOK_LANE, inboundWebhookJobHandlers(ctx, webhookSender)),
    ...incidentNotifyJobs(ctx, webhookSender),
    // A forward only accepts a send (its delivery is a delivery job): the default slots.
    ...inboundForwardJobHandlers(ctx),
    ...domainVerificationJobHandlers(ctx),
    ...warmupJobHandlers(ctx),
    ...retentionJobHandlers(ctx),
    ...reputationJobHandlers(ctx),
  };
}

/**
 * The job runner's lanes (bulkheads, `JobKindOptions.lane`): delivery waits on SMTP servers and
 * webhook posting on HTTP receivers, so each has slots of its own and neither can starve the other
 * or the maintenance jobs (DNS checks, warmup, retention) in the runner's default slots.
 */
export const DELIVERY_LANE = 'delivery';
/** The lane of webhook posts, retries and replays. */
export const WEBHOOK_LANE = 'webhooks';

/** Slots of each lane unless `jobs.lanes` says otherwise (docs/jobs.md, docs/security.md). */
export const defaultLaneSlots: Readonly<Record<string, number>> = { [DELIVERY_LANE]: 32, [WEBHOOK_LANE]: 16 };

/**
 * The delivery lane's slots only transactional mail may take unless `jobs.transactionalSlots` says
 * otherwise: one in eight (4 of the default 32, none below 8), so a password reset finds a slot while
 * bulk pages hold the rest (docs/shaping.md, "Fair queues and priority").
 */
export function defaultTransactionalSlots(lanes: Readonly<Record<string, number>>): Record<string, number> {
  return { [DELIVERY_LANE]: Math.floor((lanes[DELIVERY_LANE] ?? 0) / 8) };
}

/**
 * The incident notifications' jobs: the webhook and Slack POSTs in the webhook lane (they wait on
 * HTTP receivers), the email, which only accepts a send, in the default slots.
 */
function incidentNotifyJobs(
  ctx: MailplaneContext,
  webhookSender: WebhookSender,
): Record<string, JobHandler | JobKindOptions> {
  const { [INCIDENT_EMAIL_JOB]: email, ...posts } = incidentNotifyJobHandlers(ctx, webhookSender);
  return { ...inLane(WEBHOOK_LANE, posts), ...(email && { [INCIDENT_EMAIL_JOB]: email }) };
}

/** `handlers` with each kind put in `lane`. */
function inLane(lane: string, handlers: Record<string, JobHandler | JobKindOptions>): Record<string, JobKindOptions> {
  return Object.fromEntries(
    Object.entries(handlers).map(([kind, entry]) => [
      kind,
      { ...(typeof entry === 'function' ? { handler: entry } : entry), lane },
    ]),
  );
}
