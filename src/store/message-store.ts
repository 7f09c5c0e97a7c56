import type { JobStream } from './job-store.js';
import type { EpochNs } from '../model/time.js';

/** Email event types of the spec (the `type` of a webhook event). */
export const EventType = {
  Processed: 0,
  Dropped: 1,
  Delivered: 2,
  SoftBounced: 3,
  HardBounced: 4,
  Opened: 5,
  Clicked: 6,
  Unsubscribed: 7,
  Spam: 8,
  /** A scheduled message was cancelled before its send started (mailplane's addition, docs/sending.md). */
  Cancelled: 9,
} as const;
/** One of {@link EventType}'s values. */
export type EventType = (typeof EventType)[keyof typeof EventType];

/** An address with an optional display name. */
export interface Mailbox {
  email: string;
  name: string;
}

/** A cc or bcc copy of one recipient's message. */
export interface CopyRecipient extends Mailbox {
  customFields: Record<string, string>;
}

/**
 * What a cc or bcc copy is a copy of. A copy is a message of its own (its own id, VERP address,
 * unsubscribe link, events and outcome) whose `to` is the copy's address; its headers show the
 * recipient it is a copy of in `To` and the sent cc copies in `Cc`, as every copy of the email does.
 */
export interface CopyOf {
  /** The recipient's own message. */
  messageId: string;
  kind: 'cc' | 'bcc';
  /** The recipient, for the `To` header. */
  to: Mailbox;
}

/** An attachment as accepted: base64 content. */
export interface AttachmentContent {
  filename: string;
  /** Base64 of the bytes. */
  content: string;
}

/** What one send request said, shared by all of its recipients (stored once per request). */
export interface MessageContent {
  from: Mailbox;
  replyTo?: Mailbox;
  subject: string;
  preText?: string;
  htmlBody?: string;
  textBody?: string;
  ampBody?: string;
  headers: Record<string, string>;
  groups: string[];
  ippool?: string;
  trackOpens: boolean;
  trackClicks: boolean;
  attachments: AttachmentContent[];
  webhookEndpoint?: string;
  /**
   * When a scheduled send is due (`sendAt`, docs/sending.md): epoch nanoseconds as a decimal
   * string (the content is stored as JSON, which has no exact 64-bit integers). Absent: sent at once.
   */
  sendAt?: string;
  /** The stored template the send used (`POST /subaccount/email/template`); the parts above are its version's. */
  template?: TemplateUse;
  /**
   * The send's priority class (the request's `stream`, or the rule's choice; docs/shaping.md):
   * its delivery jobs are claimed in it. Absent on sends accepted before classes existed.
   */
  stream?: JobStream;
  /**
   * Set on a forward of a received message (an inbound route's `forward` action, docs/inbound.md):
   * delivery sends that message's raw bytes as received, ARC-sealed and DKIM-signed for the sending
   * domain, instead of composing the parts above (which only describe it in lists).
   */
  forward?: ForwardedMessage;
}

/** The received message a forward delivers (see {@link MessageContent.forward}). */
export interface ForwardedMessage {
  /** The received message's id (`InboundMessageRecord.id`), of the same sub-account. */
  inboundMessageId: string;
}

/** Which stored template, and which of its versions, a send used. */
export interface TemplateUse {
  id: number;
  name: string;
  version: number;
}

/** One send request: its content and who sent it. */
export interface SendBatchRecord {
  /** UUID of the request. */
  id: string;
  accountId: number;
  subAccountId: number;
  /** Id of the sending domain (the from address's), or `null` when it was not a verified domain. */
  domainId: number | null;
  content: MessageContent;
  created: EpochNs;
}

/**
 * Where a message is in its life. `queued`, `deferred` and `scheduled` (waiting for its `sendAt`)
 * are not final; the others are (`cancelled`: a scheduled message cancelled before it started).
 */
export type MessageStatus =
  'queued' | 'deferred' | 'delivered' | 'dropped' | 'smtp_dropped' | 'hard_bounced' | 'scheduled' | 'cancelled';

/** One recipient's message. */
export interface MessageRecord {
  /** The `messageId` returned to the sender: a UUID. */
  id: string;
  batchId: string;
  accountId: number;
  subAccountId: number;
  /** The envelope recipient: the `to` entry, or for a copy the copy's address. */
  to: Mailbox;
  /**
   * The cc copies shown in the `Cc` header. Only with `separateCopies: false` (messages accepted
   * before copies were messages of their own) are they, and `bcc`, in this message's envelope too.
   */
  cc: CopyRecipient[];
  bcc: CopyRecipient[];
  customFields: Record<string, string>;
  /** Set on a cc or bcc copy (see {@link CopyOf}); `null` on a recipient's own message. */
  copyOf: CopyOf | null;
  /** Whether this message's cc and bcc copies are messages of their own, each sent in its own transaction. */
  separateCopies: boolean;
  status: MessageStatus;
  /** Delivery attempts made so far. */
  attempts: number;
  submittedAt: EpochNs;
  updated: EpochNs;
  ipId: number | null;
  ipPoolId: number | null;
  tpspId: number | null;
  /** The last SMTP reply (or the drop reason) for this message. */
  smtpCode: number | null;
  smtpDescription: string;
}

/** One event of one message. */
export interface EventRecord {
  /** The `eventID`: a UUID, unique per event (receivers deduplicate by it). */
  id: string;
  messageId: string;
  accountId: number;
  subAccountId: number;
  type: EventType;
  created: EpochNs;
  /** Type-specific details (SMTP code and text, user agent, clicked URL, drop reason). */
  metadata: Record<string, unknown>;
}

/** What {@link MessageStore.recordOutcome} changes on a message. */
export interface MessageOutcome {
  status: MessageStatus;
  attempts?: number;
  smtpCode?: number | null;
  smtpDescription?: string;
  ipId?: number | null;
  ipPoolId?: number | null;
  tpspId?: number | null;
  updated: EpochNs;
}

/**
 * Messages, the content they were sent with, and their event log.
 *
 * - `insertAccepted` MUST write the batch, its messages and their events together; callers run it
 *   inside `MailplaneStore.transaction` with the counters and the delivery job.
 * - `get` is scoped by account: another account's message id is indistinguishable from an unknown one.
 * - `addEvents` MUST keep event ids unique.
 */
export interface MessageStore {
  insertAccepted(
    batch: SendBatchRecord,
    messages: readonly MessageRecord[],
    events: readonly EventRecord[],
  ): Promise<void>;
  /** The message with its batch, scoped by account, or `null`. */
  get(accountId: number, messageId: string): Promise<{ message: MessageRecord; batch: SendBatchRecord } | null>;
  /** Messages of a batch that still wait for a first delivery attempt (`queued`), ordered by id. */
  listQueued(batchId: string, limit: number, afterId?: string): Promise<MessageRecord[]>;
  /**
   * Every message of a batch whatever its status, ordered by id, after `afterId`, at most `limit`
   * (a scheduled send's release and its cancel). Unknown batch: an empty list.
   */
  listBatch(batchId: string, limit: number, afterId?: string): Promise<MessageRecord[]>;
  /** The message and its batch by id alone (delivery workers), or `null`. */
  getForDelivery(messageId: string): Promise<{ message: MessageRecord; batch: SendBatchRecord } | null>;
  /**
   * The cc or bcc copy of message `messageId` (of batch `batchId`) whose address is `email`,
   * compared case-insensitively, or `null`.
   */
  findCopy(batchId: string, messageId: string, email: string): Promise<MessageRecord | null>;
  /** Events of a message, oldest first. */
  listEvents(messageId: string): Promise<EventRecord[]>;
  addEvents(events: readonly EventRecord[]): Promise<void>;
  /**
   * Moves a message to `outcome.status` only if it is currently in one of `from` and, when
   * `outcome.attempts` is given, has made `outcome.attempts - 1` attempts; answers whether it moved.
   * This is how a terminal state is reached, and each attempt recorded, exactly once even with
   * duplicate workers (a retry job run twice after an expired lease).
   */
  recordOutcome(messageId: string, from: readonly MessageStatus[], outcome: MessageOutcome): Promise<boolean>;
  /**
   * Messages matching `filter`, newest first by (`submittedAt`, `id`), after `page.after`, at
   * most `page.limit` (docs/activity.md).
   */
  listActivity(filter: ActivityFilter, page: ActivityPage): Promise<ActivityMessage[]>;
  /**
   * Events matching `filter` (message filters apply to the event's message), newest first by
   * (`created`, `id`), after `page.after`, at most `page.limit`. Events whose message was
   * already deleted by retention are not listed.
   */
  listActivityEvents(filter: ActivityFilter, page: ActivityPage): Promise<ActivityEvent[]>;
  /**
   * Deletes at most `limit` messages submitted before `before` (retention), of every sub-account
   * or only those `scope` selects; answers how many.
   */
  deleteMessagesBefore(before: EpochNs, limit: number, scope?: RetentionScope): Promise<number>;
  /** Deletes at most `limit` events created before `before` (retention), in `scope`; answers how many. */
  deleteEventsBefore(before: EpochNs, limit: number, scope?: RetentionScope): Promise<number>;
}

/**
 * The rows a retention delete may remove: one sub-account's (its own retention), or every
 * sub-account's but some (those with a retention of their own). Neither set: every row.
 */
export interface RetentionScope {
  /** Only this sub-account's rows. */
  subAccount?: { accountId: number; subAccountId: number };
  /** Every row except these sub-accounts'. */
  exceptSubAccountIds?: readonly number[];
}

// The activity queries of `MessageStore.listActivity` and `listActivityEvents` (docs/activity.md).
/**
 * What an activity query (docs/activity.md) selects. Every filter is optional but the account;
 * text filters are compared exactly after lower-casing (the caller lower-cases them).
 */
export interface ActivityFilter {
  accountId: number;
  subAccountId?: number;
  /** The envelope recipient, lower-cased. */
  recipient?: string;
  /** The from address, lower-cased. */
  sender?: string;
  status?: MessageStatus;
  /** One of the send's groups (exact). */
  group?: string;
  /** One message, by its id (lower-case): its events, on the event lists. */
  messageId?: string;
  ipPoolId?: number;
  /** Inclusive lower bound on the message's `submittedAt` (the event's `created` for events). */
  from?: EpochNs;
  /** Exclusive upper bound, on the same timestamp as `from`. */
  to?: EpochNs;
  /** Events only: the event types to keep. */
  eventTypes?: readonly EventType[];
}

/**
 * Where a page starts: strictly after this (timestamp, id) in the newest-first order. Rows are
 * keyed on an immutable pair, so mail accepted while a client pages never shifts its pages.
 */
export interface ActivityCursor {
  at: EpochNs;
  id: string;
}

/** One page request of an activity query. */
export interface ActivityPage {
  after?: ActivityCursor;
  limit: number;
}

/** A message of an activity query with the send it belongs to. */
export interface ActivityMessage {
  message: MessageRecord;
  batch: SendBatchRecord;
}

/** An event of an activity query with its message and send. */
export interface ActivityEvent extends ActivityMessage {
  event: EventRecord;
}
