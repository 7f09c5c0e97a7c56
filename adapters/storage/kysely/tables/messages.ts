import type { DbInt, DbIntNull } from '../schema.js';

/** One send request; `content` is the JSON of its MessageContent. */
export interface SendBatchesTable {
  id: string;
  account_id: DbInt;
  sub_account_id: DbInt;
  domain_id: DbIntNull;
  content: string;
  created: DbInt;
}

/** One recipient's message. */
export interface MessagesTable {
  id: string;
  batch_id: string;
  account_id: DbInt;
  sub_account_id: DbInt;
  to_email: string;
  to_name: string;
  cc: string;
  bcc: string;
  custom_fields: string;
  status: string;
  attempts: DbInt;
  submitted_at: DbInt;
  updated: DbInt;
  ip_id: DbIntNull;
  ip_pool_id: DbIntNull;
  tpsp_id: DbIntNull;
  smtp_code: DbIntNull;
  smtp_description: string;
  /** JSON of the copy's CopyOf, or NULL on a recipient's own message. */
  copy_of: string | null;
  /** 1 when the message's cc and bcc copies are messages of their own (0 on rows older than 0012). */
  separate_copies: DbInt;
  /** Lower-cased `to_email`, for the recipient filter (0015). */
  to_key: string;
  /** Lower-cased from address of the send, for the sender filter (0015). */
  from_key: string;
  /** The send's groups as `|a|b|` (see `groupKey`), for the group filter (0015). */
  group_key: string;
}

/** One event of one message. */
export interface EventsTable {
  id: string;
  message_id: string;
  account_id: DbInt;
  sub_account_id: DbInt;
  type: DbInt;
  created: DbInt;
  metadata: string;
  /** The message's filter keys (migration 0024): fixed for its life, copied when the event is written. */
  to_key: string;
  from_key: string;
  group_key: string;
  /** The message's current status and pool, kept in step by `recordOutcome` (migration 0024). */
  status: string;
  ip_pool_id: DbIntNull;
}

/** Tables of the message area. */
export interface MessageTables {
  send_batches: SendBatchesTable;
  messages: MessagesTable;
  events: EventsTable;
}
