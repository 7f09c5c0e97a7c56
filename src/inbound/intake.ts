/**
 * What the inbound listener does with one message once its DATA is read: one record per accepted
 * recipient, threaded to the sent message it answers, with its route's action (store, or a durable
 * `inbound-webhook` job that posts the payload, or an `inbound-forward` job), all committed in one transaction before the SMTP
 * answer, so that nothing answered 250 is lost and nothing answered 451 was kept.
 */
import type { ParsedMail } from 'mailparser';
import { INBOUND_WEBHOOK_JOB, type MailplaneJobs } from '../jobs/kinds.js';
import type { EnqueueJob, JobQueue } from '../jobs/queue.js';
import { stringifyJson } from '../model/json.js';
import { nowNs } from '../model/time.js';
import type {
  InboundAuthResults,
  InboundDomainRecord,
  InboundMessageRecord,
  InboundRouteRecord,
  InboundStatus,
} from '../store/inbound-store.js';
import { attachmentUrl, type AttachmentLinksDeps } from './attachment-links.js';
import { inboundForwardJob } from './forward-job.js';
import { inboundPayload, referencesOf } from './payload.js';
import { threadedMessageId } from './threading.js';
import type { IdGenerator } from '../model/ids.js';

/** What this module uses of the instance: what it calls uses ({@link AttachmentLinksDeps}), and the fields below. */
export interface IntakeDeps extends AttachmentLinksDeps {
  readonly ids: IdGenerator;
  readonly jobs: JobQueue<MailplaneJobs>;
}

/** A recipient accepted at `RCPT TO`: its domain and the route that takes its mail. */
export interface AcceptedRecipient {
  address: string;
  domain: InboundDomainRecord;
  route: InboundRouteRecord;
}

/** One message as the listener read it. */
export interface ReceivedMessage {
  raw: Buffer;
  /** `null`: its MIME could not be read; it is kept and posted as raw text. */
  parsed: ParsedMail | null;
  auth: InboundAuthResults;
  mailFrom: string;
  recipients: readonly AcceptedRecipient[];
}

/** The limits the listener was given. */
export interface IntakeLimits {
  maxStoredRawBytes: number;
  inlineAttachmentBytes: number;
}

/** The status and detail a route's action gives a new record: a post or a forward to come is `pending`. */
export function firstStatus(route: Pick<InboundRouteRecord, 'action'>): { status: InboundStatus; detail: string } {
  if (route.action === 'webhook' || route.action === 'forward') return { status: 'pending', detail: '' };
  return { status: 'stored', detail: '' };
}

/**
 * Whether the raw copy of a message of `size` bytes is kept: up to the configured size, and
 * always for a forward, which sends it on (the listener's message size limit bounds it).
 */
export function keepsRaw(route: Pick<InboundRouteRecord, 'action'>, size: number, limits: IntakeLimits): boolean {
  return route.action === 'forward' || size <= limits.maxStoredRawBytes;
}

/**
 * The `inbound-webhook` job that posts `record` to its route `routeId`; `dedupeKey` tells a post
 * again (`POST /subaccount/inbound/message/{id}/redeliver`) from the first.
 */
export function inboundWebhookJob(
  ctx: IntakeDeps,
  record: InboundMessageRecord,
  parsed: ParsedMail | null,
  raw: Buffer,
  routeId: number,
  inlineAttachmentBytes: number,
  dedupeKey = `inbound:${record.id}`,
): EnqueueJob<MailplaneJobs> {
  const nowMs = ctx.clock.now();
  const payload = inboundPayload(record, parsed, raw, {
    inlineAttachmentBytes,
    attachmentUrl: (index) =>
      record.raw === null ? null : attachmentUrl(ctx, record.subAccountId, record.id, index, nowMs),
  });
  return {
    kind: INBOUND_WEBHOOK_JOB,
    payload: {
      messageId: record.id,
      accountId: record.accountId,
      subAccountId: record.subAccountId,
      routeId,
      body: stringifyJson(payload),
    },
    dedupeKey,
  };
}

/** Characters of the `From` address and subject kept on the record, for lists and search. */
const MAX_LISTED_TEXT = 998;

/** `value` as a record keeps it: bounded, a NUL (which PostgreSQL cannot hold in text) as U+FFFD. */
const listed = (value: string): string => value.slice(0, MAX_LISTED_TEXT).replace(/\u0000/g, '\ufffd');

/**
 * Records `message` for each of its recipients and queues the webhook posts, in one transaction;
 * answers the records written. A failure throws (the listener answers `451 4.3.0`).
 */
export async function recordInbound(
  ctx: IntakeDeps,
  message: ReceivedMessage,
  limits: IntakeLimits,
): Promise<InboundMessageRecord[]> {
  const { parsed, raw } = message;
  const headers = {
    inReplyTo: parsed?.inReplyTo ?? '',
    references: parsed
      ? referencesOf(parsed)
          .map((id) => `<${id}>`)
          .join(' ')
      : '',
  };
  // Recipients of one account share the answer.
  const threads = new Map<number, Promise<string | null>>();
  const threadOf = (accountId: number) => {
    let thread = threads.get(accountId);
    if (!thread) threads.set(accountId, (thread = threadedMessageId(ctx.store.messages, accountId, headers)));
    return thread;
  };
  const receivedAt = nowNs(ctx.clock);
  const records: InboundMessageRecord[] = [];
  const jobs: EnqueueJob<MailplaneJobs>[] = [];
  for (const { address, domain, route } of message.recipients) {
    const record: InboundMessageRecord = {
      id: ctx.ids.uuid(),
      accountId: domain.accountId,
      subAccountId: domain.subAccountId,
      routeId: route.id,
      receivedAt,
      mailFrom: listed(message.mailFrom),
      rcptTo: listed(address),
      from: listed(parsed?.from?.value[0]?.address ?? ''),
      subject: listed(parsed?.subject ?? ''),
      messageIdHeader: listed((parsed?.messageId ?? '').replace(/^<|>$/g, '')),
      inReplyToMessageId: await threadOf(domain.accountId),
      size: raw.length,
      raw: keepsRaw(route, raw.length, limits) ? raw : null,
      auth: message.auth,
      ...firstStatus(route),
      updated: receivedAt,
    };
    records.push(record);
    if (route.action === 'forward') jobs.push(inboundForwardJob(record, route.id));
    if (route.action === 'webhook')
      jobs.push(inboundWebhookJob(ctx, record, parsed, raw, route.id, limits.inlineAttachmentBytes));
  }
  await ctx.store.transaction(async (store) => {
    for (const record of records) await store.inbound.insertMessage(record);
    if (jobs.length > 0) await ctx.jobs.enqueue(jobs, { store });
  });
  if (jobs.length > 0) ctx.jobs.notify();
  return records;
}
