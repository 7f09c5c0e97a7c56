/**
 * Every kind of background job mailplane runs, declared once: its kind string (what the job rows
 * store, so these never change: jobs already queued in a database must keep running) and the zod
 * schema of its payload. Producers enqueue through `ctx.jobs` (a `JobQueue<MailplaneJobs>`), which
 * checks each payload against its kind at compile time; {@link jobHandler} checks the stored
 * payload again when a job is taken, so a row written by another version of the code, or by hand,
 * ends that job dead with a clear error instead of reaching the handler.
 */
import { z } from 'zod';
import { EventType, type JobRecord } from '../store/index.js';
import { plainIssueMessage } from '../model/issues.js';
import { PermanentJobError } from './errors.js';
import type { JobGiveUp, JobHandler } from './types.js';

/** Job kind that splits the accepted messages of one send request into pages (src/delivery/jobs.ts). */
export const DELIVER_BATCH_JOB = 'deliver-batch';
/** Job kind that delivers one page of a batch (src/delivery/jobs.ts). */
export const DELIVER_PAGE_JOB = 'deliver-page';
/** Job kind of one message's retry after a soft bounce, or its next routing after a wait. */
export const DELIVER_MESSAGE_JOB = 'deliver-message';
/** Job kind that evaluates one IP's warmup at its interval boundaries (src/ip/warmup-jobs.ts). */
export const IP_WARMUP_JOB = 'ip-warmup';
/** Job kind of the scheduled DNS check of one domain (src/domain/verification-jobs.ts). */
export const DOMAIN_CHECK_JOB = 'domain-check';
/** Job kind that posts a group of committed events to the webhooks that want them. */
export const WEBHOOK_EVENTS_JOB = 'webhook-events';
/** Job kind that retries one failed POST of one event to one webhook. */
export const WEBHOOK_RETRY_JOB = 'webhook-retry';

/** Job kind of one batch of a webhook replay (src/webhook/replay.ts). */
export const WEBHOOK_REPLAY_JOB = 'webhook-replay';

/** Job kind that deletes messages and events past the retention period (src/retention/jobs.ts). */
export const RETENTION_JOB = 'retention';

/** Job kind of the reputation guard's evaluation, once a minute on one node (src/alerts/evaluation-job.ts). */
export const REPUTATION_JOB = 'reputation';

/** Job kind that releases a scheduled send at its `sendAt` (src/scheduling/scheduled-jobs.ts). */
export const DELIVER_SCHEDULED_JOB = 'deliver-scheduled';
/** Job kind that follows one domain's DKIM rotation: checks the pending key's record, then retires the old key (src/domain/verification-jobs.ts). */
export const DKIM_ROTATION_JOB = 'dkim-rotation';

/** Job kind that posts an incident's change to the account's webhooks with `incident` on (src/alerts/notify-jobs.ts). */
export const INCIDENT_WEBHOOK_JOB = 'incident-webhook';
/** Job kind of one Slack-compatible POST of an incident's change, retried on its own schedule (src/alerts/notify-jobs.ts). */
export const INCIDENT_SLACK_JOB = 'incident-slack';
/** Job kind that sends one incident notification email through the accept path (src/alerts/notify-jobs.ts). */
export const INCIDENT_EMAIL_JOB = 'incident-email';
/** Job kind that posts one received message to its inbound route's webhook, retried on the webhook schedule (src/inbound/webhook-job.ts). */
export const INBOUND_WEBHOOK_JOB = 'inbound-webhook';
/** Job kind that forwards one received message through the accept path (src/inbound/forward-job.ts). */
export const INBOUND_FORWARD_JOB = 'inbound-forward';

/** An event as a `webhook-events` job carries it (JSON: `created`, ns, as a decimal string). */
const outboxEventSchema = z.object({
  id: z.string(),
  messageId: z.string(),
  accountId: z.number().int(),
  subAccountId: z.number().int(),
  type: z.enum(EventType),
  created: z.string().regex(/^\d{1,20}$/),
  metadata: z.record(z.string(), z.unknown()),
});

const id = () => z.number().int().nonnegative();

/** The payload schema of each job kind. */
export const jobPayloadSchemas = {
  /** `afterId`: the last message id of the previous page (absent on the first run). */
  [DELIVER_BATCH_JOB]: z.object({ batchId: z.string(), afterId: z.string().optional() }),
  /** The page's message ids, and the id they come after ('' for the first page). */
  [DELIVER_PAGE_JOB]: z.object({ batchId: z.string(), afterId: z.string(), ids: z.array(z.string()) }),
  /** `attempt`: attempts made when it was scheduled; a job whose message has moved on does nothing. */
  [DELIVER_MESSAGE_JOB]: z.object({
    messageId: z.string(),
    attempt: z.number().int().nonnegative(),
    /** A traffic-shaping slot booked for the message (src/delivery/route-admission.ts). */
    slot: z.object({ key: z.string(), at: z.number() }).optional(),
  }),
  /** `startedAt`: the warmup's `warmupStartedAt` (ns, a decimal string); a job of an ended warmup does nothing. */
  [IP_WARMUP_JOB]: z.object({ accountId: id(), ipId: id(), startedAt: z.string().regex(/^\d{1,20}$/) }),
  [DOMAIN_CHECK_JOB]: z.object({ domainId: id(), subAccountId: id() }),
  /** `webhookIds`: post to these webhooks only (the events put off while those webhooks were busy). */
  [WEBHOOK_EVENTS_JOB]: z.object({ events: z.array(outboxEventSchema), webhookIds: z.array(id()).optional() }),
  /** `body`: the exact JSON posted the first time, signed again at each attempt. */
  [WEBHOOK_RETRY_JOB]: z.object({
    accountId: id(),
    webhookId: id(),
    eventId: z.string(),
    body: z.string(),
    replayId: z.string().optional(),
  }),
  /** No payload: the job reads the retention settings of the instance that runs it. */
  [RETENTION_JOB]: z.object({}),
  /** No payload: the job reads the alert rules and protection settings from the store. */
  [REPUTATION_JOB]: z.object({}),
  /** The scheduled send; due at its `sendAt`. */
  [DELIVER_SCHEDULED_JOB]: z.object({ batchId: z.string() }),
  /**
   * One batch of a replay: the range [`from`, `to`) in ns (decimal strings), the event types (none:
   * all), and the (created, id) of the last event posted so far, newest first.
   */
  [WEBHOOK_REPLAY_JOB]: z.object({
    accountId: id(),
    webhookId: id(),
    replayId: z.string(),
    from: z.string().regex(/^\d{1,20}$/),
    to: z.string().regex(/^\d{1,20}$/),
    eventTypes: z.array(z.enum(EventType)).optional(),
    requestedAt: z.string().regex(/^\d{1,20}$/),
    after: z.object({ at: z.string().regex(/^\d{1,20}$/), id: z.string() }).optional(),
  }),
  [DKIM_ROTATION_JOB]: z.object({ domainId: id(), subAccountId: id() }),
  /**
   * `notificationId`: the Standard Webhooks `webhook-id` of this incident and change; `body`: the
   * JSON posted, made when the change committed; `webhookIds`: post to these only (put off while busy).
   */
  [INCIDENT_WEBHOOK_JOB]: z.object({
    accountId: id(),
    notificationId: z.string(),
    body: z.string(),
    webhookIds: z.array(id()).optional(),
  }),
  /** The rule's `slackUrl` and the Slack message (JSON), made when the change committed. */
  [INCIDENT_SLACK_JOB]: z.object({
    accountId: id(),
    notificationId: z.string(),
    url: z.string(),
    body: z.string(),
  }),
  /** One recipient's email, sent as `subAccountId` (the owner of `from`'s domain) from `from`. */
  [INCIDENT_EMAIL_JOB]: z.object({
    accountId: id(),
    subAccountId: id(),
    notificationId: z.string(),
    from: z.string(),
    to: z.string(),
    subject: z.string(),
    text: z.string(),
    html: z.string(),
  }),
  /**
   * `body`: the payload JSON, made when the message was received, signed again at each attempt;
   * `postsBefore`: POSTs made by the jobs this one took over from (put off while the route was busy).
   */
  [INBOUND_WEBHOOK_JOB]: z.object({
    messageId: z.string(),
    accountId: id(),
    subAccountId: id(),
    routeId: id(),
    body: z.string(),
    postsBefore: z.number().int().nonnegative().optional(),
  }),
  /** `sendKey`: the idempotency key of the forward's send, so a job run again sends nothing twice. */
  [INBOUND_FORWARD_JOB]: z.object({
    messageId: z.string(),
    accountId: id(),
    subAccountId: id(),
    routeId: id(),
    sendKey: z.string().max(255),
  }),
};

/** A job kind mailplane runs. */
export type MailplaneJobKind = keyof typeof jobPayloadSchemas;

/** The payload of each job kind (the type parameter of `ctx.jobs`, a `JobQueue<MailplaneJobs>`). */
export type MailplaneJobs = { [K in MailplaneJobKind]: z.infer<(typeof jobPayloadSchemas)[K]> };

/** The payload of a job of kind `K`. */
export type JobPayload<K extends MailplaneJobKind> = MailplaneJobs[K];

/**
 * The handler of kind `kind`, for `JobRunnerOptions.handlers`: the stored payload is parsed with
 * the kind's schema before `handler` runs; one that does not parse ends the job dead at once
 * (`PermanentJobError`, whose message names the kind and the fields at fault), since no retry
 * can make it valid.
 *
 * @example
 * const retry = jobHandler(DELIVER_MESSAGE_JOB, async (job) => deliver(job.payload.messageId));
 */
export function jobHandler<K extends MailplaneJobKind>(kind: K, handler: JobHandler<JobPayload<K>>): JobHandler {
  const schema: z.ZodType<JobPayload<K>> = jobPayloadSchemas[kind] as unknown as z.ZodType<JobPayload<K>>;
  return async (job, helpers) => {
    const parsed = schema.safeParse(job.payload, { error: plainIssueMessage });
    if (!parsed.success) {
      const fields = parsed.error.issues
        .map((issue) => `${issue.path.join('.') || '(payload)'}: ${issue.message}`)
        .join('; ');
      throw new PermanentJobError(`invalid payload of a ${kind} job: ${fields}`.slice(0, 1_000));
    }
    return handler({ ...job, payload: parsed.data }, helpers);
  };
}

/**
 * The give-up of kind `kind`, for `JobKindOptions.giveUp`: `giveUp` gets the payload parsed with
 * the kind's schema. A payload that does not parse names nothing that can be settled (no message
 * can be told from it): nothing is done beyond the runner's error line about the dead job.
 */
export function jobGiveUp<K extends MailplaneJobKind>(
  kind: K,
  giveUp: (job: Omit<JobRecord, 'payload'> & { payload: JobPayload<K> }, reason: string) => Promise<void>,
): JobGiveUp {
  const schema: z.ZodType<JobPayload<K>> = jobPayloadSchemas[kind] as unknown as z.ZodType<JobPayload<K>>;
  return async (job, reason) => {
    const parsed = schema.safeParse(job.payload);
    if (parsed.success) await giveUp({ ...job, payload: parsed.data }, reason);
  };
}
