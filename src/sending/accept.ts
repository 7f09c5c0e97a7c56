import type { MailplaneContext } from '../context.js';
import { normaliseDomainName } from '../domain/name.js';
import { ForbiddenError, ValidationError } from '../errors.js';
import { dayOfMs } from '../model/dates.js';
import { msToNs, type EpochNs } from '../model/time.js';
import { addCounters, counterIncrements, newEvent, type CounterDelta } from '../lifecycle/events.js';
import { lifecycleStep, NEW, stepCounters } from '../lifecycle/table.js';
import {
  EventType,
  type CopyRecipient,
  type DomainRecord,
  type EventRecord,
  type MailplaneStore,
  type MessageRecord,
  type SendBatchRecord,
  type SubAccountRecord,
  type TemplateUse,
} from '../store/index.js';
import { DELIVER_BATCH_JOB, DELIVER_SCHEDULED_JOB } from '../jobs/kinds.js';
import type { CompiledTemplates } from '../template/renderer.js';
import { unsubscribeUrl } from '../tracking/links.js';
import {
  applyListDrops,
  envelopeRecipients,
  planRecipients,
  type Drop,
  type DropReasonName,
  type EnvelopeRecipient,
} from './recipients.js';
import type { SendRequest } from './request.js';
import { sendSchedule } from './schedule.js';
import { claimIdempotencyKey, type IdempotencyClaim } from './idempotency.js';
import { stringifyJson } from '../model/json.js';

/**
 * Why a recipient was dropped before sending: the `errorCode` (an integer, as the reference's
 * `EmailResponse` has it) and a stable name that starts the entry's `message`.
 */
export const DropReason: Record<DropReasonName, number> = {
  INVALID_ADDRESS: 1,
  SUPPRESSED: 2,
  SENDER_DOMAIN_NOT_VERIFIED: 3,
  DUPLICATE_RECIPIENT: 4,
  // Only when a scheduled send is released (a blocked sub-account's send is refused whole with 403).
  SUBACCOUNT_BLOCKED: 5,
};
export type { Drop, DropReasonName };

/** A cc or bcc copy in a {@link SendResponseEntry}: its own message, or why it was dropped. */
export interface CopyResponseEntry {
  kind: 'cc' | 'bcc';
  email: string;
  messageId: string;
  errorCode?: number;
  message?: string;
}

/**
 * One entry of the send response, per `to` recipient, as the reference's `EmailResponse`, plus
 * `copies` when the recipient had cc or bcc copies (each a message of its own).
 */
export interface SendResponseEntry {
  to: string;
  submittedAt: EpochNs;
  messageId: string;
  errorCode?: number;
  message?: string;
  copies?: CopyResponseEntry[];
  /** A scheduled send only: the request's id (its cancel route takes it) and when it is due (ns). */
  batchId?: string;
  sendAt?: EpochNs;
}

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
function checkRenderedLengths(ctx: MailplaneContext, templates: CompiledTemplates, request: SendRequest): void {
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
   * The idempotency key to commit with the send (src/sending/idempotency.ts), with the response
   * JSON (`stringifyJson` of the entries). When a concurrent send holds the key, nothing is
   * committed and `IdempotencyKeyTakenError` is thrown.
   */
  idempotency?: IdempotencyClaim;
  /**
   * The {@link senderDomain} of the request's from address, when the caller looked it up already
   * (the SMTP relay refuses a message whose domain cannot send before it accepts it).
   */
  senderDomain?: Awaited<ReturnType<typeof senderDomain>>;
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
  ctx: MailplaneContext,
  subAccount: SubAccountRecord,
  request: SendRequest,
  options: AcceptOptions = {},
): Promise<SendResponseEntry[]> {
  // A sendAt out of its window is refused (422) before anything else is looked at.
  const schedule = request.sendAt === undefined ? null : sendSchedule(ctx.clock, request.sendAt);
  checkRenderedLengths(ctx, await ctx.templateCompiler.compile(request), request);
  if (subAccount.blocked) {
    const reason = subAccount.blockReason ? `: ${subAccount.blockReason}` : '';
    throw new ForbiddenError('SUBACCOUNT_BLOCKED', `this sub-account is blocked and cannot send${reason}`);
  }
  const { store } = ctx;
  let ipPoolId: number | null = null;
  if (request.ippool !== undefined) {
    const pool = await store.ipPools.findByName(subAccount.accountId, request.ippool);
    if (!pool) {
      throw new ValidationError(
        `no IP pool named "${request.ippool}" in this account`,
        [{ path: 'ippool', message: 'unknown IP pool' }],
        'UNKNOWN_IP_POOL',
      );
    }
    ipPoolId = pool.id;
  }

  const { domain, drop: domainDrop } =
    options.senderDomain ?? (await senderDomain(store, subAccount.id, request.from.email));

  const planned = planRecipients(request);
  const candidates = envelopeRecipients(planned)
    .filter((r) => r.drop === null)
    .map((r) => r.email);
  applyListDrops(planned, new Set(await store.suppressions.suppressedAmong(subAccount.id, candidates)), domainDrop);

  const nowMs = ctx.clock.now();
  const now = msToNs(nowMs);
  const batch: SendBatchRecord = {
    id: ctx.ids.uuid(),
    accountId: subAccount.accountId,
    subAccountId: subAccount.id,
    domainId: domain?.id ?? null,
    content: {
      from: { email: request.from.email, name: request.from.name ?? '' },
      ...(request.replyTo && { replyTo: { email: request.replyTo.email, name: request.replyTo.name ?? '' } }),
      subject: request.subject,
      ...(request.preText !== undefined && { preText: request.preText }),
      ...(request.htmlBody !== undefined && { htmlBody: request.htmlBody }),
      ...(request.textBody !== undefined && { textBody: request.textBody }),
      ...(request.ampBody !== undefined && { ampBody: request.ampBody }),
      headers: request.headers ?? {},
      groups: [...new Set(request.groups ?? [])],
      ...(request.ippool !== undefined && { ippool: request.ippool }),
      trackOpens: request.trackOpens ?? false,
      trackClicks: request.trackClicks ?? false,
      attachments: request.attachments ?? [],
      ...(request.webhookEndpoint !== undefined && { webhookEndpoint: request.webhookEndpoint }),
      ...(schedule && { sendAt: schedule.sendAt }),
      ...(options.template && { template: options.template }),
    },
    created: now,
  };

  const messages: MessageRecord[] = [];
  const events: EventRecord[] = [];
  // Both named even at zero, as the stored day row always has them.
  const counters: CounterDelta = { processed: 0, dropped: 0 };
  let dropped = 0;
  /** The message of one envelope recipient, its events and counters (the lifecycle's `accepted`, `scheduled` or `refused`), and its response fields. */
  const accept = (
    recipient: EnvelopeRecipient,
    fields: Pick<MessageRecord, 'cc' | 'bcc' | 'copyOf' | 'separateCopies'>,
    id = ctx.ids.uuid(),
  ) => {
    const { drop } = recipient;
    const step = lifecycleStep(NEW, drop ? 'refused' : schedule ? 'scheduled' : 'accepted')!;
    const message: MessageRecord = {
      id,
      batchId: batch.id,
      accountId: subAccount.accountId,
      subAccountId: subAccount.id,
      to: { email: recipient.email, name: recipient.name },
      ...fields,
      customFields: recipient.customFields,
      status: step.to!,
      attempts: 0,
      submittedAt: now,
      updated: now,
      ipId: null,
      ipPoolId,
      tpspId: null,
      smtpCode: null,
      smtpDescription: drop ? `${drop.reason}: ${drop.detail}` : '',
    };
    messages.push(message);
    for (const { type } of step.events) {
      events.push(
        newEvent(
          ctx,
          message,
          type,
          now,
          type === EventType.Dropped && drop ? { reason: drop.reason, description: drop.detail } : {},
        ),
      );
    }
    addCounters(counters, stepCounters(step, { firstAttempt: true, firstEvent: true }));
    if (!drop) return { messageId: id };
    dropped += 1;
    return { messageId: id, errorCode: DropReason[drop.reason], message: `${drop.reason}: ${drop.detail}` };
  };
  const asCopy = (c: EnvelopeRecipient): CopyRecipient => ({
    email: c.email,
    name: c.name,
    customFields: c.givenFields,
  });
  const entries = planned.map(({ to, copies }): SendResponseEntry => {
    // Only the copies that are sent are named in the headers (Cc) and on the recipient's message.
    const cc = copies.filter((c) => c.kind === 'cc' && c.drop === null).map(asCopy);
    const bcc = copies.filter((c) => c.kind === 'bcc' && c.drop === null).map(asCopy);
    const id = ctx.ids.uuid();
    const entry: SendResponseEntry = {
      to: to.email,
      submittedAt: now,
      ...accept(to, { cc, bcc, copyOf: null, separateCopies: true }, id),
    };
    if (schedule) Object.assign(entry, { batchId: batch.id, sendAt: BigInt(schedule.sendAt) });
    if (copies.length > 0) {
      const copyOf = { messageId: id, to: { email: to.email, name: to.name } };
      entry.copies = copies.map((c) => ({
        kind: c.kind,
        email: c.email,
        ...accept(c, { cc, bcc: [], copyOf: { ...copyOf, kind: c.kind }, separateCopies: true }),
      }));
    }
    return entry;
  });

  const increments = counterIncrements(batch, batch.content.groups, dayOfMs(nowMs), counters);

  // Group commit: concurrent sends share a transaction; each still answers only after its commit.
  await ctx.writes.commit(async (tx) => {
    // First, so a send that lost its key to a concurrent one writes nothing before it rolls back.
    if (options.idempotency)
      await claimIdempotencyKey(tx, subAccount.id, options.idempotency, stringifyJson(entries), nowMs);
    await tx.messages.insertAccepted(batch, messages, events);
    await tx.stats.increment(increments);
    if (dropped < messages.length) {
      // A scheduled send's job is due at sendAt; it releases the messages, then queues this same batch job.
      const kind = schedule ? DELIVER_SCHEDULED_JOB : DELIVER_BATCH_JOB;
      await ctx.jobs.enqueue(
        [
          {
            kind,
            payload: { batchId: batch.id },
            runAt: schedule?.sendAtMs ?? nowMs,
            dedupeKey: `${kind}:${batch.id}`,
          },
        ],
        { store: tx },
      );
    }
  });
  if (dropped < messages.length) ctx.jobs.notify();
  // Counted once committed: a send that failed to commit accepted nothing.
  for (const message of messages)
    ctx.metrics.messages.inc({ outcome: message.status === 'dropped' ? 'refused' : 'accepted' });
  for (const event of events)
    if (event.type === EventType.Dropped)
      ctx.metrics.dropped.inc({ reason: String(event.metadata.reason ?? 'unknown') });
  return entries;
}
