import { normaliseDomainName } from '../domain/name.js';
import { ForbiddenError, ValidationError } from '../errors.js';
import { counterIncrements, type LifecycleEventsDeps } from '../lifecycle/events.js';
import { reputationIncrements } from '../lifecycle/reputation-counts.js';
import { DELIVER_BATCH_JOB, DELIVER_SCHEDULED_JOB, type MailplaneJobs } from '../jobs/kinds.js';
import { deliveryClass } from '../jobs/delivery-class.js';
import type { EnqueueJob, JobQueue } from '../jobs/queue.js';
import { dayOfMs } from '../model/dates.js';
import { stringifyJson } from '../model/json.js';
import { msToNs } from '../model/time.js';
import {
  EventType,
  type DomainRecord,
  type ForwardedMessage,
  type MailplaneStore,
  type SendBatchRecord,
  type SubAccountRecord,
  type TemplateUse,
} from '../store/index.js';
import type { CompiledTemplates, TemplateCompiler } from '../template/renderer.js';
import { unsubscribeUrl, type LinksDeps } from '../tracking/links.js';
import { acceptRecipients, newSendBatch, type AcceptedSend, type SendResponseEntry } from './accept-records.js';
import { claimIdempotencyKey, type IdempotencyClaim } from '../idempotency/keys.js';
import { applyListDrops, envelopeRecipients, planRecipients, type Drop, type PlannedRecipient } from './recipients.js';
import type { SendRequest } from './request.js';
import { sendSchedule, type SendSchedule } from './schedule.js';
import { sendStream } from './stream.js';
import type { MailplaneMetrics } from '../metrics/metrics.js';
import type { GroupCommit } from '../store/group-commit.js';

/** What this module uses of the instance: what it calls uses ({@link LifecycleEventsDeps}, {@link LinksDeps}), and the fields below. */
export interface AcceptDeps extends LifecycleEventsDeps, LinksDeps {
  readonly store: MailplaneStore;
  readonly metrics: MailplaneMetrics;
  readonly jobs: JobQueue<MailplaneJobs>;
  readonly writes: GroupCommit;
  readonly templateCompiler: TemplateCompiler;
}

export { DropReason, type CopyResponseEntry, type SendResponseEntry } from './accept-records.js';
export type { Drop, DropReasonName } from './recipients.js';

/**
 * The sending domain of `fromEmail` in the sub-account, and why it cannot send (`drop`: not a
 * domain of the sub-account, or not verified yet; `null` when it can). The API drops every
 * recipient of such a send; the SMTP relay refuses the message.
 */
export async function senderDomain(
  store: MailplaneStore,
  subAccountId: number,
  fromEmail: string,
): Promise<{ domain: DomainRecord | null; drop: Drop | null }> {
  const fromName = normaliseDomainName(fromEmail.slice(fromEmail.lastIndexOf('@') + 1));
  const domain = fromName.ok ? await store.domains.findByName(subAccountId, fromName.name) : null;
  if (domain?.verified === true) return { domain, drop: null };
  const detail = domain
    ? `the sending domain ${domain.name} is not verified yet (publish its DKIM record)`
    : `the from address's domain is not a sending domain of this sub-account`;
  return { domain, drop: { reason: 'SENDER_DOMAIN_NOT_VERIFIED', detail } };
}

/**
 * Each recipient's rendering stays within the limit (422 otherwise). A copy renders with its own
 * custom fields over its recipient's (src/sending/recipients.ts), so it is checked with both.
 */
function checkRenderedLengths(ctx: AcceptDeps, templates: CompiledTemplates, request: SendRequest): void {
  const unsubscribeLength = unsubscribeUrl(ctx, '00000000-0000-0000-0000-000000000000').length;
  request.to.forEach((to, i) => {
    templates.checkRenderedLength(to.customFields ?? {}, unsubscribeLength, `to.${i}.customFields`);
    for (const kind of ['cc', 'bcc'] as const) {
      to[kind]?.forEach((copy, j) =>
        templates.checkRenderedLength(
          { ...to.customFields, ...copy.customFields },
          unsubscribeLength,
          `to.${i}.${kind}.${j}.customFields`,
        ),
      );
    }
  });
}

/** What a send carries besides its request. */
export interface AcceptOptions {
  /** The stored template the request was made from (src/sending/template-send.ts), kept with the send. */
  template?: TemplateUse;
  /**
   * The idempotency key to commit with the send (src/idempotency/keys.ts), with the response
   * JSON (`stringifyJson` of the entries). When a concurrent send holds the key, nothing is
   * committed and `IdempotencyKeyTakenError` is thrown.
   */
  idempotency?: IdempotencyClaim;
  /**
   * The {@link senderDomain} of the request's from address, when the caller looked it up already
   * (the SMTP relay refuses a message whose domain cannot send before it accepts it).
   */
  senderDomain?: Awaited<ReturnType<typeof senderDomain>>;
  /**
   * The received message this send forwards (an inbound `forward` route): delivery sends its raw
   * bytes instead of composing the request's parts (src/delivery/compose-forward.ts).
   */
  forward?: ForwardedMessage;
}

/**
 * Accepts a send request for a sub-account. Checks run in an order a caller can reason about:
 * the request shape (already validated), templates compile (422), the sub-account is not blocked
 * (403, refused as a whole), the IP pool exists (422); then per envelope recipient (each `to`
 * and each of its cc and bcc copies, src/sending/recipients.ts) an invalid address, a suppressed
 * address, or a from-domain that is not a verified domain of the sub-account drops that
 * recipient. Each copy becomes a message of its own, sent in its own SMTP transaction, so that a
 * bounce, complaint or unsubscribe of a copy acts on the copy's address. Everything the response
 * acknowledges (batch, messages, events, counters and the delivery job) is committed in one
 * transaction before it returns. With `sendAt` (src/sending/schedule.ts) the accepted messages are
 * `scheduled` and the job is a `deliver-scheduled` due then, which makes the time-dependent checks again.
 */
export async function acceptSend(
  ctx: AcceptDeps,
  subAccount: SubAccountRecord,
  request: SendRequest,
  options: AcceptOptions = {},
): Promise<SendResponseEntry[]> {
  const schedule = await checkSendable(ctx, subAccount, request);
  const stream = sendStream(request);
  const ipPoolId = await ipPoolIdOf(ctx.store, subAccount, request);
  const nowMs = ctx.clock.now();
  const { domain, planned } = await planRecipientDrops(ctx.store, subAccount, request, options.senderDomain, nowMs);
  const { template } = options;
  const { forward } = options;
  const batch = newSendBatch(ctx, {
    ...{ subAccount, request, domain, schedule, template, stream, forward },
    now: msToNs(nowMs),
  });
  const accepted = acceptRecipients(ctx, batch, planned, { ipPoolId, schedule });
  await commitSend(ctx, accepted, { schedule, nowMs, idempotency: options.idempotency });
  countAccepted(ctx, accepted);
  return accepted.entries;
}

/**
 * Refuses a send that cannot be accepted whole, before any recipient is looked at: a `sendAt`
 * out of its window (422, first of all), templates that do not compile or render too long (422),
 * a blocked sub-account (403). Answers when the send is due (`null`: now).
 */
async function checkSendable(
  ctx: AcceptDeps,
  subAccount: SubAccountRecord,
  request: SendRequest,
): Promise<SendSchedule | null> {
  const schedule = request.sendAt === undefined ? null : sendSchedule(ctx.clock, request.sendAt);
  checkRenderedLengths(ctx, await ctx.templateCompiler.compile(request), request);
  if (subAccount.blocked) {
    const reason = subAccount.blockReason ? `: ${subAccount.blockReason}` : '';
    throw new ForbiddenError('SUBACCOUNT_BLOCKED', `this sub-account is blocked and cannot send${reason}`);
  }
  return schedule;
}

/** The id of the IP pool the request names, in the sub-account's account (422 when there is none); `null` when it names none. */
async function ipPoolIdOf(
  store: MailplaneStore,
  subAccount: SubAccountRecord,
  request: SendRequest,
): Promise<number | null> {
  if (request.ippool === undefined) return null;
  const pool = await store.ipPools.findByName(subAccount.accountId, request.ippool);
  if (!pool) {
    throw new ValidationError(
      `no IP pool named "${request.ippool}" in this account`,
      [{ path: 'ippool', message: 'unknown IP pool' }],
      'UNKNOWN_IP_POOL',
    );
  }
  return pool.id;
}

/**
 * Every envelope recipient of the request with its drop, if any: an invalid or repeated address
 * (src/sending/recipients.ts), then, among the rest, a suppressed address or a from-domain that
 * cannot send. A drop refuses that recipient only; the others are still sent.
 */
async function planRecipientDrops(
  store: MailplaneStore,
  subAccount: SubAccountRecord,
  request: SendRequest,
  known: AcceptOptions['senderDomain'],
  nowMs: number,
): Promise<{ domain: DomainRecord | null; planned: PlannedRecipient[] }> {
  const { domain, drop: domainDrop } = known ?? (await senderDomain(store, subAccount.id, request.from.email));
  const planned = planRecipients(request);
  const candidates = envelopeRecipients(planned)
    .filter((r) => r.drop === null)
    .map((r) => r.email);
  // An entry that expires is judged at the clock of the accept (the scheduled job judges again at `sendAt`).
  const suppressed = await store.suppressions.suppressedAmong(subAccount.id, candidates, msToNs(nowMs));
  applyListDrops(planned, new Set(suppressed), domainDrop);
  return { domain, planned };
}

/**
 * Commits everything the response acknowledges in one transaction (batch, messages, events, their
 * webhook posts, the daily counters and the reputation guard's hourly ones, the idempotency key and
 * the delivery job), shared with concurrent sends by group commit: each still answers only after its
 * commit. No job is queued when every recipient was dropped.
 */
async function commitSend(
  ctx: Pick<AcceptDeps, 'writes' | 'jobs' | 'webhookOutbox'>,
  accepted: AcceptedSend,
  commit: { schedule: SendSchedule | null; nowMs: number; idempotency: IdempotencyClaim | undefined },
): Promise<void> {
  const { batch, messages, events, entries } = accepted;
  const { schedule, nowMs, idempotency } = commit;
  const increments = counterIncrements(batch, batch.content.groups, dayOfMs(nowMs), accepted.counters);
  const reputation = reputationIncrements(accepted.reputation);
  const queues = accepted.dropped < messages.length;
  await ctx.writes.commit(async (tx) => {
    // First, so a send that lost its key to a concurrent one writes nothing before it rolls back.
    if (idempotency) await claimIdempotencyKey(tx, batch.subAccountId, idempotency, stringifyJson(entries), nowMs);
    await tx.messages.insertAccepted(batch, messages, events);
    await ctx.webhookOutbox.add(tx, events);
    await tx.stats.increment(increments);
    await tx.reputation.increment(reputation);
    if (queues) await ctx.jobs.enqueue([deliveryJob(batch, schedule, nowMs)], { store: tx });
  });
  if (queues) ctx.jobs.notify();
}

/**
 * The job that delivers the send: a `deliver-batch` due now or, for a scheduled send, a
 * `deliver-scheduled` due at `sendAt`, which releases the messages and then queues this same batch job.
 * Both carry the send's class and sub-account (src/jobs/delivery-class.ts), as do the jobs they queue.
 */
function deliveryJob(batch: SendBatchRecord, schedule: SendSchedule | null, nowMs: number): EnqueueJob<MailplaneJobs> {
  const kind = schedule ? DELIVER_SCHEDULED_JOB : DELIVER_BATCH_JOB;
  const runAt = schedule?.sendAtMs ?? nowMs;
  return { kind, payload: { batchId: batch.id }, runAt, dedupeKey: `${kind}:${batch.id}`, ...deliveryClass(batch) };
}

/** Counts the send's messages and drops in the metrics, once committed: a send that failed to commit accepted nothing. */
function countAccepted(ctx: Pick<AcceptDeps, 'metrics'>, { messages, events }: AcceptedSend): void {
  for (const message of messages)
    ctx.metrics.messages.inc({ outcome: message.status === 'dropped' ? 'refused' : 'accepted' });
  for (const event of events)
    if (event.type === EventType.Dropped)
      ctx.metrics.dropped.inc({ reason: String(event.metadata.reason ?? 'unknown') });
}
