/**
 * Incident notifications (docs/reputation.md, "Notifications"): when an incident opens or resolves,
 * whoever opened or resolved it calls {@link notifyIncident} in the same transaction, which queues
 * one durable job per channel: the account's webhooks with `incident` on, the rule's Slack URL, and
 * one email per address. The jobs commit with the change (none without it) and each is retried on
 * its own (src/alerts/notify-jobs.ts), so a receiver that is down delays only its own notification.
 */
import { normaliseDomainName } from '../domain/name.js';
import { INCIDENT_EMAIL_JOB, INCIDENT_SLACK_JOB, INCIDENT_WEBHOOK_JOB, type MailplaneJobs } from '../jobs/kinds.js';
import type { EnqueueJob, JobQueue } from '../jobs/queue.js';
import type { Logger } from '../logging/logger.js';
import { MAX_LIST_LIMIT } from '../model/paging.js';
import type { IncidentRecord, MailplaneStore, SubAccountRecord } from '../store/index.js';
import type { AlertNotifyConfig } from './notify-config.js';
import {
  incidentEmail,
  incidentNotificationId,
  incidentWebhookBody,
  slackIncidentMessage,
  type IncidentChange,
} from './notify-messages.js';

export type { IncidentChange } from './notify-messages.js';

/** One incident's change and where to tell it. */
export interface IncidentNotice {
  /** The incident as stored after the change. */
  incident: IncidentRecord;
  change: IncidentChange;
  /** The rule's `emails` (or the protection settings'); may be empty. */
  emails: readonly string[];
  /** The rule's `slackUrl`, checked as a webhook target when it was saved (and again at each POST). */
  slackUrl: string | null;
}

/** What {@link notifyIncident} uses of the instance (the evaluation and the incident API call it). */
export interface IncidentNotifyContext {
  readonly config: { readonly alerts: AlertNotifyConfig };
  readonly jobs: JobQueue<MailplaneJobs>;
  readonly logger: Logger;
}

/**
 * Queues every notification of `notice` through `store` (a transaction's store: they commit with
 * the incident change). Call `ctx.jobs.notify()` once that transaction has committed, so this
 * process's runner starts them at once. Emails go only when `alerts.from` is set and its domain is
 * a verified sending domain of a sub-account of the incident's account that is not blocked;
 * otherwise one warning says why, and the webhook and Slack notifications go all the same.
 */
export async function notifyIncident(
  ctx: IncidentNotifyContext,
  store: MailplaneStore,
  notice: IncidentNotice,
): Promise<void> {
  const { incident, change } = notice;
  const { accountId } = incident;
  const notificationId = incidentNotificationId(incident.id, change);
  const jobs: EnqueueJob<MailplaneJobs>[] = [
    {
      kind: INCIDENT_WEBHOOK_JOB,
      payload: { accountId, notificationId, body: incidentWebhookBody(incident, change) },
      dedupeKey: notificationId,
    },
  ];
  if (notice.slackUrl !== null) {
    jobs.push({
      kind: INCIDENT_SLACK_JOB,
      payload: { accountId, notificationId, url: notice.slackUrl, body: slackIncidentMessage(incident, change) },
      dedupeKey: notificationId,
    });
  }
  const emails = [...new Set(notice.emails)];
  if (emails.length > 0) {
    const sender = await emailSender(store, accountId, ctx.config.alerts.from);
    if (sender.ok) {
      const email = incidentEmail(incident, change);
      for (const to of emails) {
        jobs.push({
          kind: INCIDENT_EMAIL_JOB,
          payload: { accountId, subAccountId: sender.subAccount.id, notificationId, from: sender.from, to, ...email },
          dedupeKey: `${notificationId}:${to}`,
        });
      }
    } else {
      ctx.logger.warn('incident notification: no email sent', {
        incidentId: incident.id,
        accountId,
        change,
        recipients: emails.length,
        reason: sender.reason,
      });
    }
  }
  await ctx.jobs.enqueue(jobs, { store });
}

/**
 * The sub-account that sends the account's notification emails: one whose verified sending domain
 * is `from`'s, preferring one that is not blocked (a blocked one's sends are refused), or why none can.
 */
async function emailSender(
  store: MailplaneStore,
  accountId: number,
  from: string | null,
): Promise<{ ok: true; from: string; subAccount: SubAccountRecord } | { ok: false; reason: string }> {
  if (from === null) return { ok: false, reason: 'the alerts.from option (MAILPLANE_ALERTS_FROM) is not set' };
  const domainName = from.slice(from.lastIndexOf('@') + 1);
  const normalised = normaliseDomainName(domainName);
  if (!normalised.ok) return { ok: false, reason: `${domainName} (of alerts.from) is not a domain name` };
  let blocked: SubAccountRecord | null = null;
  for (let offset = 0; ; offset += MAX_LIST_LIMIT) {
    const page = await store.subAccounts.list(accountId, { limit: MAX_LIST_LIMIT, offset });
    for (const subAccount of page) {
      // The accept path judges the from domain the same way (sending/accept.ts, senderDomain).
      if ((await store.domains.findByName(subAccount.id, normalised.name))?.verified !== true) continue;
      if (!subAccount.blocked) return { ok: true, from, subAccount };
      blocked ??= subAccount;
    }
    if (page.length < MAX_LIST_LIMIT) break;
  }
  return {
    ok: false,
    reason: blocked
      ? `the sub-account ${blocked.id} that owns ${domainName} is blocked and cannot send`
      : `${domainName} (of alerts.from ${from}) is not a verified sending domain of this account`,
  };
}
