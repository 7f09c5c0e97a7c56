/**
 * The jobs that carry incident notifications out (queued by src/alerts/notify.ts), each retried on
 * the webhook schedule (`webhooks.retryDelaysMs`):
 * - `incident-webhook` posts the signed body to every enabled webhook of the account with
 *   `incident` on, as an event delivery is posted: through the instance's webhook sender (its
 *   slots, its delivery log, its `webhook-retry` jobs), under the incident change's `webhook-id`;
 * - `incident-slack` posts the Slack message unsigned, with the same target check at each attempt;
 *   a 4xx answer other than 408 and 429 is final (the URL is wrong: trying again cannot help);
 * - `incident-email` accepts one message through the normal send path as the sub-account that owns
 *   the `from` domain (DKIM signed, counted, in the activity), at most once per incident, change and
 *   address (an idempotency key of that sub-account), so a job that runs again sends nothing twice.
 */
import { MailplaneError } from '../errors.js';
import { requestHash, sendIdempotently, type IdempotencyClaim } from '../idempotency/keys.js';
import { PermanentJobError, RetryJobError } from '../jobs/errors.js';
import {
  INCIDENT_EMAIL_JOB,
  INCIDENT_SLACK_JOB,
  INCIDENT_WEBHOOK_JOB,
  jobHandler,
  type JobPayload,
  type MailplaneJobs,
} from '../jobs/kinds.js';
import type { EnqueueJob } from '../jobs/queue.js';
import type { JobHandler, JobKindOptions } from '../jobs/types.js';
import { stringifyJson } from '../model/json.js';
import { acceptSend, type SendResponseEntry, type AcceptDeps } from '../sending/accept.js';
import type { SendRequest } from '../sending/request.js';
import type { WebhookSender } from '../webhook/sender.js';
import type { Logger } from '../logging/logger.js';

/** What this module uses of the instance: what it calls uses ({@link AcceptDeps}), and the fields below. */
export interface NotifyJobsDeps extends AcceptDeps {
  readonly logger: Logger;
}

/** The display name of the notification emails' sender. */
const EMAIL_FROM_NAME = 'mailplane alerts';

/** Answers a receiver gives when it is busy, not wrong: retried like a 5xx. */
const RETRIED_CLIENT_STATUSES: ReadonlySet<number> = new Set([408, 429]);

/** Error kinds of a send that another try may get past (the database, a fault); the rest are final. */
const RETRIED_ERROR_KINDS: ReadonlySet<string> = new Set(['unavailable', 'storage', 'internal', 'rate-limited']);

/** The notification jobs' handlers; `sender` is the instance's webhook sender (connections, slots, log). */
export function incidentNotifyJobHandlers(
  ctx: NotifyJobsDeps,
  sender: WebhookSender,
): Record<string, JobHandler | JobKindOptions> {
  const config = ctx.config.webhooks;
  // job.attempts counts this run: the retry after attempt n waits retryDelaysMs[n - 1].
  const retryOrGiveUp = (attempts: number, error: string): never => {
    const next = config.retryDelaysMs[attempts - 1];
    if (next === undefined) throw new PermanentJobError(`gave up after ${attempts} attempts: ${error}`);
    throw new RetryJobError(error, { runAt: ctx.clock.now() + next });
  };

  const postWebhooks = jobHandler(INCIDENT_WEBHOOK_JOB, async (job) => {
    const { accountId, notificationId, body, webhookIds } = job.payload;
    const only = webhookIds && new Set(webhookIds);
    const webhooks = await ctx.store.webhooks.listEnabledForEvent(accountId, 'incident');
    const { busy } = await sender.postAll(
      webhooks
        .filter((webhook) => !only || only.has(webhook.id))
        .map((webhook) => ({ webhook, eventId: notificationId, body })),
    );
    // As for events: each busy webhook's post in a job of its own, a little later.
    const putOff: EnqueueJob<MailplaneJobs>[] = busy.map(({ webhookId }) => ({
      kind: INCIDENT_WEBHOOK_JOB,
      payload: { accountId, notificationId, body, webhookIds: [webhookId] },
      runAt: ctx.clock.now() + config.busyDelayMs,
      dedupeKey: `${notificationId}:busy:${job.id}:${webhookId}`,
    }));
    if (putOff.length > 0) await ctx.jobs.enqueue(putOff);
  });

  const postSlack = jobHandler(INCIDENT_SLACK_JOB, async (job) => {
    const { accountId, notificationId, url, body } = job.payload;
    const result = await sender.postUnsigned(url, body);
    if (result.ok) return;
    const status = result.status;
    const refused = status !== undefined && status >= 400 && status < 500 && !RETRIED_CLIENT_STATUSES.has(status);
    if (!result.retry || refused) {
      ctx.logger.warn('incident notification: the Slack URL refused it, not retried', {
        accountId,
        notificationId,
        error: result.error,
      });
      throw new PermanentJobError(`Slack POST refused: ${result.error}`);
    }
    retryOrGiveUp(job.attempts, result.error);
  });

  const sendEmail = jobHandler(INCIDENT_EMAIL_JOB, async (job) => {
    const { accountId, notificationId, to } = job.payload;
    const subAccount = await ctx.store.subAccounts.get(accountId, job.payload.subAccountId);
    if (!subAccount) throw new PermanentJobError('the sending sub-account was deleted since the incident changed');
    const request = emailRequest(job.payload);
    // One email per incident, change and address, however often this job runs.
    const claim: IdempotencyClaim = {
      key: `mailplane-${notificationId}:${to}`.slice(0, 255),
      requestHash: requestHash(INCIDENT_EMAIL_JOB, request),
    };
    let entries: SendResponseEntry[];
    try {
      const answer = await sendIdempotently(ctx, subAccount.id, claim, async () =>
        stringifyJson(await acceptSend(ctx, subAccount, request, { idempotency: claim })),
      );
      entries = JSON.parse(answer.response) as SendResponseEntry[];
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof MailplaneError && !RETRIED_ERROR_KINDS.has(error.kind)) {
        ctx.logger.warn('incident notification: the email was refused', { accountId, notificationId, error: message });
        throw new PermanentJobError(`the email was refused: ${message}`);
      }
      return retryOrGiveUp(job.attempts, message);
    }
    const dropped = entries.find((entry) => entry.errorCode !== undefined);
    if (dropped) {
      // Accepted and dropped (a suppressed address, say): the activity shows why; trying again would not help.
      ctx.logger.warn('incident notification: the email was dropped', {
        accountId,
        notificationId,
        messageId: dropped.messageId,
        reason: dropped.message,
      });
    }
  });

  // The runner must not give up before the schedule does.
  const maxAttempts = config.retryDelaysMs.length + 1;
  return {
    [INCIDENT_WEBHOOK_JOB]: postWebhooks,
    [INCIDENT_SLACK_JOB]: { handler: postSlack, maxAttempts },
    [INCIDENT_EMAIL_JOB]: { handler: sendEmail, maxAttempts },
  };
}

/** The send request of one notification email: transactional, untracked, the parts as made at the change. */
function emailRequest(payload: JobPayload<typeof INCIDENT_EMAIL_JOB>): SendRequest {
  return {
    from: { email: payload.from, name: EMAIL_FROM_NAME },
    to: [{ email: payload.to }],
    subject: payload.subject,
    textBody: payload.text,
    htmlBody: payload.html,
    trackOpens: false,
    trackClicks: false,
    stream: 'transactional',
  };
}
