import type { EpochNs } from '../model/time.js';
import type { EventRecord, EventType, MessageRecord, MessageStatus, SendBatchRecord } from './message-store.js';

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
