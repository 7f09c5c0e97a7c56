import type { DbFlag, DbId, DbInt, DbIntNull } from '../schema.js';

/** One webhook of an account; the event switches (thirteen of the reference, `incident` of mailplane) are 0/1 flag columns. */
export interface WebhooksTable {
  id: DbId;
  account_id: DbInt;
  /** The normalised endpoint URL; unique per account. */
  url: string;
  /** `url` lower-cased by the application: the case-insensitive search key. */
  url_key: string;
  enabled: DbFlag;
  processed: DbFlag;
  delivered: DbFlag;
  dropped: DbFlag;
  soft_bounced: DbFlag;
  hard_bounced: DbFlag;
  opened: DbFlag;
  clicked: DbFlag;
  unsubscribed: DbFlag;
  spam: DbFlag;
  sent: DbFlag;
  smtp_dropped: DbFlag;
  unique_open: DbFlag;
  unique_click: DbFlag;
  /** Migration 0032: incidents opened and resolved (mailplane's switch). */
  incident: DbFlag;
  /** The signing secret, encrypted by the core's SecretBox. */
  secret_sealed: string;
  /** Migration 0020: the secret a rotation replaced, and until when (ns) it still signs. */
  previous_secret_sealed: string | null;
  previous_secret_until: DbInt | null;
  /** First failed attempt since the last success (ns). */
  failing_since: DbInt | null;
  disabled_reason: string | null;
  disabled_at: DbInt | null;
  /** The running replay and its last heartbeat (ns). */
  replay_id: string | null;
  replay_claimed_at: DbInt | null;
  created: DbInt;
  updated: DbInt;
}

/** Migration 0025: one row per webhook POST attempt (the delivery log). */
export interface WebhookDeliveriesTable {
  id: DbId;
  account_id: DbInt;
  webhook_id: DbInt;
  event_id: string;
  replay_id: string | null;
  attempt: DbInt;
  /** `WebhookDeliveryResult`. */
  result: string;
  status: DbIntNull;
  error: string | null;
  duration_ms: DbInt;
  /** ns */
  created: DbInt;
  /** ns; set when a retry is queued. */
  next_retry_at: DbIntNull;
}

/** The tables of the webhook area. */
export interface WebhookTables {
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
}
