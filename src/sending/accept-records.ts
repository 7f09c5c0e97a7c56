/**
 * The records an accepted send writes and the answer it gives, built in memory before anything is
 * stored (src/sending/accept.ts commits them in one transaction): the batch, one message per
 * envelope recipient with its lifecycle events and counters, and one response entry per `to`.
 */
import { addCounters, newEvent, type CounterDelta } from '../lifecycle/events.js';
import { lifecycleStep, NEW, stepCounters, type LifecycleStep } from '../lifecycle/table.js';
import type { ReputationEvent } from '../lifecycle/reputation-counts.js';
import type { EpochNs } from '../model/time.js';
import {
  EventType,
  type CopyRecipient,
  type DomainRecord,
  type EventRecord,
  type ForwardedMessage,
  type JobStream,
  type MessageRecord,
  type SendBatchRecord,
  type SubAccountRecord,
  type TemplateUse,
} from '../store/index.js';
import type { Drop, DropReasonName, EnvelopeRecipient, PlannedRecipient } from './recipients.js';
import type { SendRequest } from './request.js';
import type { SendSchedule } from './schedule.js';
import type { IdGenerator } from '../model/ids.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface AcceptRecordsDeps {
  readonly ids: IdGenerator;
}

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

/** What one send writes and answers; every message, event and entry is stamped `batch.created`. */
export interface AcceptedSend {
  batch: SendBatchRecord;
  messages: MessageRecord[];
  events: EventRecord[];
  /** The send's counters for the day: `processed` and `dropped` named even at zero, as the stored day row has them. */
  counters: CounterDelta;
  /** How many of `messages` were refused at once: when all of them were, nothing is queued for delivery. */
  dropped: number;
  /** Each message's counters, for the reputation guard's hourly buckets (`reputationIncrements`). */
  reputation: ReputationEvent[];
  entries: SendResponseEntry[];
}

/** What the batch of a send is made of. */
export interface BatchInput {
  subAccount: SubAccountRecord;
  request: SendRequest;
  /** The from address's sending domain, verified or not (`null`: not a domain of the sub-account). */
  domain: DomainRecord | null;
  schedule: SendSchedule | null;
  /** The stored template the request was made from, kept with the send. */
  template: TemplateUse | undefined;
  /** The send's priority class (src/sending/stream.ts), kept with the send. */
  stream: JobStream;
  /** The received message the send forwards (src/inbound/forward-job.ts), kept with the send. */
  forward?: ForwardedMessage | undefined;
  now: EpochNs;
}

/** The batch of a send: what its messages share (content, sending domain, schedule), under a new id. */
export function newSendBatch(ctx: Pick<AcceptRecordsDeps, 'ids'>, input: BatchInput): SendBatchRecord {
  const { subAccount, request, schedule, template } = input;
  return {
    id: ctx.ids.uuid(),
    accountId: subAccount.accountId,
    subAccountId: subAccount.id,
    domainId: input.domain?.id ?? null,
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
      ...(template && { template }),
      stream: input.stream,
      ...(input.forward && { forward: input.forward }),
    },
    created: input.now,
  };
}

/** What every message of one send shares while its recipients are accepted. */
interface SendScope {
  readonly ctx: Pick<AcceptRecordsDeps, 'ids'>;
  readonly ipPoolId: number | null;
  readonly schedule: SendSchedule | null;
  readonly accepted: AcceptedSend;
}

/**
 * A message per envelope recipient of `planned` (each `to`, then its copies), each moved by the
 * lifecycle from `new` to `accepted`, `scheduled` or (with a drop) `refused`, with the response
 * entries in request order.
 */
export function acceptRecipients(
  ctx: Pick<AcceptRecordsDeps, 'ids'>,
  batch: SendBatchRecord,
  planned: readonly PlannedRecipient[],
  route: { ipPoolId: number | null; schedule: SendSchedule | null },
): AcceptedSend {
  const accepted: AcceptedSend = {
    batch,
    messages: [],
    events: [],
    counters: { processed: 0, dropped: 0 },
    dropped: 0,
    reputation: [],
    entries: [],
  };
  const scope: SendScope = { ctx, ipPoolId: route.ipPoolId, schedule: route.schedule, accepted };
  accepted.entries = planned.map((recipient) => acceptEntry(scope, recipient));
  return accepted;
}

/**
 * The response entry of one `to` with its copies. Only the copies that are sent are named on the
 * recipient's message and in the headers (Cc); each copy is a message of its own, so that a bounce,
 * complaint or unsubscribe of a copy acts on the copy's address.
 */
function acceptEntry(scope: SendScope, { to, copies }: PlannedRecipient): SendResponseEntry {
  const cc = sentCopies(copies, 'cc');
  const bcc = sentCopies(copies, 'bcc');
  const { batch } = scope.accepted;
  const id = scope.ctx.ids.uuid();
  const entry: SendResponseEntry = {
    to: to.email,
    submittedAt: batch.created,
    ...acceptRecipient(scope, to, { cc, bcc, copyOf: null, separateCopies: true }, id),
  };
  if (scope.schedule) Object.assign(entry, { batchId: batch.id, sendAt: BigInt(scope.schedule.sendAt) });
  if (copies.length > 0) {
    const copyOf = { messageId: id, to: { email: to.email, name: to.name } };
    entry.copies = copies.map((c) => ({
      kind: c.kind,
      email: c.email,
      ...acceptRecipient(scope, c, { cc, bcc: [], copyOf: { ...copyOf, kind: c.kind }, separateCopies: true }),
    }));
  }
  return entry;
}

/** The copies of one kind that are sent (not dropped), as a message names them. */
function sentCopies(copies: readonly EnvelopeRecipient[], kind: 'cc' | 'bcc'): CopyRecipient[] {
  return copies
    .filter((c) => c.kind === kind && c.drop === null)
    .map((c) => ({ email: c.email, name: c.name, customFields: c.givenFields }));
}

type CopyFields = Pick<MessageRecord, 'cc' | 'bcc' | 'copyOf' | 'separateCopies'>;

/**
 * The message of one envelope recipient, with its events and counters, added to the send; answers
 * its response fields (with the drop's code and reason when it was refused).
 */
function acceptRecipient(
  scope: SendScope,
  recipient: EnvelopeRecipient,
  fields: CopyFields,
  id = scope.ctx.ids.uuid(),
): Pick<SendResponseEntry, 'messageId' | 'errorCode' | 'message'> {
  const { drop } = recipient;
  const step = lifecycleStep(NEW, drop ? 'refused' : scope.schedule ? 'scheduled' : 'accepted')!;
  recordStep(scope, newMessage(scope, recipient, fields, id, step), step, drop);
  if (!drop) return { messageId: id };
  scope.accepted.dropped += 1;
  return { messageId: id, errorCode: DropReason[drop.reason], message: `${drop.reason}: ${drop.detail}` };
}

/** The stored message of one envelope recipient, in the status `step` moves it to. */
function newMessage(
  scope: SendScope,
  recipient: EnvelopeRecipient,
  fields: CopyFields,
  id: string,
  step: LifecycleStep,
): MessageRecord {
  const { batch } = scope.accepted;
  const { drop } = recipient;
  return {
    id,
    batchId: batch.id,
    accountId: batch.accountId,
    subAccountId: batch.subAccountId,
    to: { email: recipient.email, name: recipient.name },
    ...fields,
    customFields: recipient.customFields,
    status: step.to!,
    attempts: 0,
    submittedAt: batch.created,
    updated: batch.created,
    ipId: null,
    ipPoolId: scope.ipPoolId,
    tpspId: null,
    smtpCode: null,
    smtpDescription: drop ? `${drop.reason}: ${drop.detail}` : '',
  };
}

/** Adds `message`, the events of its first lifecycle step (a drop's reason on `Dropped`) and its counters. */
function recordStep(scope: SendScope, message: MessageRecord, step: LifecycleStep, drop: Drop | null): void {
  const { accepted } = scope;
  accepted.messages.push(message);
  for (const { type } of step.events) {
    const metadata = type === EventType.Dropped && drop ? { reason: drop.reason, description: drop.detail } : {};
    accepted.events.push(newEvent(scope.ctx, message, type, message.submittedAt, metadata));
  }
  const counters = stepCounters(step, { firstAttempt: true, firstEvent: true });
  addCounters(accepted.counters, counters);
  accepted.reputation.push({
    accountId: message.accountId,
    subAccountId: message.subAccountId,
    domainId: accepted.batch.domainId,
    recipient: message.to.email,
    ipId: null,
    atMs: Number(message.submittedAt / 1_000_000n),
    counters,
  });
}
