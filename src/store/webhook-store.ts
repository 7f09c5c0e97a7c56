import type { ListQuery } from '../model/paging.js';
import type { EpochNs } from '../model/time.js';
import type { Outcome } from './outcome.js';

/**
 * The per-event switches of a webhook, named exactly as the reference document's `Webhook` fields.
 * The first nine are the spec's event types 0-8; `sent`, `smtpDropped`, `uniqueOpen` and
 * `uniqueClick` are the reference's extra switches (see `src/webhook/toggles.ts`).
 */
export type WebhookToggle =
  | 'processed'
  | 'delivered'
  | 'dropped'
  | 'softBounced'
  | 'hardBounced'
  | 'opened'
  | 'clicked'
  | 'unsubscribed'
  | 'spam'
  | 'sent'
  | 'smtpDropped'
  | 'uniqueOpen'
  | 'uniqueClick';

/** Every switch of a webhook with its value. */
export type WebhookToggles = Record<WebhookToggle, boolean>;

/** A webhook: an account's HTTP endpoint that receives the events it switched on. */
export interface WebhookRecord extends WebhookToggles {
  id: number;
  accountId: number;
  /** The endpoint, normalised (WHATWG serialisation); unique within the account. */
  url: string;
  /** A paused webhook (`false`) receives nothing. */
  enabled: boolean;
  /** The signing secret, encrypted at rest (`SecretBox.encrypt`); never shown after creation. */
  secretSealed: string;
  created: EpochNs;
  updated: EpochNs;
}

/** What {@link WebhookStore.create} needs. */
export interface NewWebhook extends WebhookToggles {
  accountId: number;
  url: string;
  enabled: boolean;
  secretSealed: string;
  created: EpochNs;
}

/** The fields {@link WebhookStore.update} can change; absent fields keep their value. */
export interface WebhookPatch extends Partial<WebhookToggles> {
  url?: string;
  enabled?: boolean;
  secretSealed?: string;
  updated: EpochNs;
}

/**
 * Storage of webhooks. Webhooks belong to an account; every read and write is scoped by
 * `accountId`, so another account's webhook is indistinguishable from a missing one.
 *
 * - `create` and `update` MUST answer `duplicate-url` when the account already has another webhook
 *   whose `url` is equal (byte for byte: the service normalises URLs first), also under concurrent
 *   creates. The same URL in two accounts is allowed.
 * - `list` MUST order by id ascending and match `search` as a literal (`%` and `_` are not
 *   wildcards), case-insensitive substring of `url`.
 * - `delete` MUST remove the row in one atomic step and answer the removed record, or `null`.
 * - `listEnabledForEvent` MUST answer only the account's webhooks that are `enabled` AND have the
 *   given switch on, ordered by id; it runs once per event, so it MUST be an indexed query on
 *   `accountId`.
 */
export interface WebhookStore {
  create(input: NewWebhook): Promise<Outcome<WebhookRecord, 'duplicate-url'>>;
  get(accountId: number, id: number): Promise<WebhookRecord | null>;
  list(accountId: number, query: ListQuery): Promise<WebhookRecord[]>;
  update(accountId: number, id: number, patch: WebhookPatch): Promise<Outcome<WebhookRecord, 'not-found' | 'duplicate-url'>>;
  /** Removes the webhook; answers what was removed, or `null` when there was none. */
  delete(accountId: number, id: number): Promise<WebhookRecord | null>;
  /** The webhooks that must receive an event of the kind `toggle` (the delivery worker calls it per event). */
  listEnabledForEvent(accountId: number, toggle: WebhookToggle): Promise<WebhookRecord[]>;
}
