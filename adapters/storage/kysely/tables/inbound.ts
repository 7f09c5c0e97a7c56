import type { ColumnType } from 'kysely';
import type { DbId, DbInt, DbIntNull } from '../schema.js';

/** A binary column: BLOB on SQLite, bytea on PostgreSQL; both drivers read it as a Buffer. */
export type DbBytes = ColumnType<Buffer | null, Buffer | null, Buffer | null>;

/** A sending domain that receives mail (migration 0033); the row exists only while receiving is enabled. */
export interface InboundDomainsTable {
  domain_id: DbInt;
  account_id: DbInt;
  sub_account_id: DbInt;
  /** The domain's normalised name, copied from `domains.name` (names never change). */
  name: string;
  enabled_at: DbInt;
  mx_verified: DbInt;
  mx_failure_reason: string;
  mx_checked_at: DbInt;
}

/** A route of a sub-account (migration 0033): a recipient pattern and what to do with its mail. */
export interface InboundRoutesTable {
  id: DbId;
  account_id: DbInt;
  sub_account_id: DbInt;
  /** Normalised (lower-case): unique per sub-account, and the case-insensitive search key. */
  pattern: string;
  kind: string;
  domain: string;
  local_part: string;
  action: string;
  url: string | null;
  secret_sealed: string | null;
  forward_to: string | null;
  created: DbInt;
  updated: DbInt;
}

/** A received message (migration 0033). */
export interface InboundMessagesTable {
  id: string;
  account_id: DbInt;
  sub_account_id: DbInt;
  route_id: DbIntNull;
  received_at: DbInt;
  mail_from: string;
  rcpt_to: string;
  from_address: string;
  subject: string;
  message_id_header: string;
  in_reply_to_message_id: string | null;
  size: DbInt;
  raw: DbBytes;
  /** JSON of the authentication results. */
  auth: string;
  status: string;
  detail: string;
  updated: DbInt;
}

/** One POST of a received message to its route's webhook (migration 0035). */
export interface InboundPostAttemptsTable {
  id: DbId;
  message_id: string;
  account_id: DbInt;
  sub_account_id: DbInt;
  route_id: DbInt;
  url: string;
  attempt: DbInt;
  result: string;
  status: DbIntNull;
  error: string | null;
  duration_ms: DbInt;
  created: DbInt;
  next_retry_at: DbIntNull;
}

/** Tables of receiving. */
export interface InboundTables {
  inbound_domains: InboundDomainsTable;
  inbound_routes: InboundRoutesTable;
  inbound_messages: InboundMessagesTable;
  inbound_post_attempts: InboundPostAttemptsTable;
}
