import type { ListQuery } from '../model/paging.js';
import type { EpochNs } from '../model/time.js';
import type { Outcome } from './outcome.js';

/**
 * The per-event switches of a webhook, named exactly as the reference document's `Webhook` fields.
 * The first nine are the spec's event types 0-8; `sent`, `smtpDropped`, `uniqueOpen` and
 * `uniqueClick` are the reference's extra switches (see `src/lifecycle/webhook-toggles.ts`); `incident` is
 * mailplane's: the incidents of the account's alert rules and protections (src/alerts/notify.ts).
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
  | 'uniqueClick'
  | 'incident';

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
  /** The secret a rotation replaced, still signing until {@link previousSecretUntil}; `null` when none. */
  previousSecretSealed: string | null;
  /** When the previous secret stops signing; `null` when there is none. */
  previousSecretUntil: EpochNs | null;
  /** Time of the first failed attempt since the last successful one; `null` while deliveries succeed. */
  failingSince: EpochNs | null;
  /** Why mailplane disabled the webhook (it kept failing); `null` when it did not. Re-enabling clears it. */
  disabledReason: string | null;
  /** When mailplane disabled the webhook; `null` when it did not. */
  disabledAt: EpochNs | null;
  /** The replay running for this webhook, if any (see {@link WebhookStore.claimReplay}). */
  replayId: string | null;
  /** When the running replay last claimed the webhook (its heartbeat). */
  replayClaimedAt: EpochNs | null;
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
  previousSecretSealed?: string | null;
  previousSecretUntil?: EpochNs | null;
  failingSince?: EpochNs | null;
  disabledReason?: string | null;
  disabledAt?: EpochNs | null;
  /**
   * A new signing secret, the stored one becoming the previous one (signing until `previousUntil`):
   * a rotation, in the same atomic write, so that of two rotations at once the later keeps the
   * earlier's secret as its previous one. Not together with `secretSealed`, `previousSecretSealed`
   * or `previousSecretUntil`.
   */
  rotateTo?: { secretSealed: string; previousUntil: EpochNs };
  updated: EpochNs;
}

/** One attempt's result, for {@link WebhookStore.recordDeliveryOutcome}. */
export interface WebhookDeliveryOutcome {
  ok: boolean;
  /** Time of the attempt. */
  at: EpochNs;
  /** A failure disables the webhook when its first failure since the last success is at least this old (ns). */
  disableAfter: EpochNs;
  /** The `disabledReason` to record if this failure disables the webhook. */
  reason: string;
}

/**
 * What one webhook POST came to, as the delivery log keeps it: `delivered` (2xx), `will-retry` (a
 * retry is queued for `nextRetryAt`), `gave-up` (the retries ran out) or `failed` (not retried:
 * trying again cannot help, e.g. a refused target).
 */
export type WebhookDeliveryResult = 'delivered' | 'will-retry' | 'gave-up' | 'failed';

/** One attempt to POST an event to a webhook (first tries, retries and replays alike). */
export interface NewWebhookDelivery {
  accountId: number;
  webhookId: number;
  /** The event posted (the `webhook-id`). */
  eventId: string;
  /** Set when the attempt belongs to a replay. */
  replayId: string | null;
  /** 1 for the first attempt, 2 for the first retry, and so on. */
  attempt: number;
  result: WebhookDeliveryResult;
  /** The receiver's HTTP status; `null` when there was no answer. */
  status: number | null;
  /** Why it failed, in plain words (bounded; never a body or a secret); `null` on success. */
  error: string | null;
  durationMs: number;
  created: EpochNs;
  /** When the queued retry is due; `null` unless `result` is `will-retry`. */
  nextRetryAt: EpochNs | null;
}

/** A {@link NewWebhookDelivery} as stored. */
export interface WebhookDeliveryRecord extends NewWebhookDelivery {
  id: number;
}

/** What {@link WebhookStore.claimReplay} needs. */
export interface ReplayClaim {
  replayId: string;
  at: EpochNs;
  /** A claim held by another replay whose heartbeat is older than this is taken over (its job died). */
  staleBefore: EpochNs;
}

/**
 * Storage of webhooks. Webhooks belong to an account; every read and write is scoped by
 * `accountId`, so another account's webhook is indistinguishable from a missing one.
 *
 * - `update` with `rotateTo` MUST set the previous secret to the secret stored at the moment of the
 *   write (never one read earlier), in one atomic step with the new secret: after concurrent
 *   rotations every rotation's secret but the last is some later rotation's previous one.
 * - `create` and `update` MUST answer `duplicate-url` when the account already has another webhook
 *   whose `url` is equal (byte for byte: the service normalises URLs first), also under concurrent
 *   creates. The same URL in two accounts is allowed.
 * - `list` MUST order by id ascending and match `search` as a literal (`%` and `_` are not
 *   wildcards), case-insensitive substring of `url`.
 * - `delete` MUST remove the row in one atomic step and answer the removed record, or `null`.
 * - `listEnabledForEvent` MUST answer only the account's webhooks that are `enabled` AND have the
 *   given switch on, ordered by id; it runs once per event, so it MUST be an indexed query on
 *   `accountId`.
 * - A new webhook has no previous secret, is not failing, not disabled by mailplane and has no replay.
 * - `recordDeliveryOutcome`: a success MUST clear `failingSince`; a failure MUST set it to `at` when it
 *   is `null`. A failure whose `failingSince` (after that) is at or before `at - disableAfter`, on an
 *   enabled webhook, MUST set `enabled` false, `disabledReason` and `disabledAt` (= `at`) and answer
 *   the disabled record; every other call answers `null`, so of concurrent failures exactly one
 *   answers the record (the caller logs the disabling once).
 * - `claimReplay` MUST be one atomic step: it sets `replayId`/`replayClaimedAt` and answers `true` when
 *   the webhook has no replay, has this one (a heartbeat), or has one claimed before `staleBefore`;
 *   otherwise it changes nothing and answers `false`. Of concurrent claims with distinct ids on a free
 *   webhook exactly one wins. A missing webhook answers `false`.
 * - `releaseReplay` clears the replay only when it is `replayId`'s.
 * - `recordDeliveries` inserts every entry (in as few statements as it can: it runs per attempt);
 *   `listDeliveries` MUST answer only the account's rows of that webhook, newest first (`created`
 *   descending, then id descending), paged by `limit`/`offset`, from an index on the webhook;
 *   deleting a webhook deletes its log. `deleteDeliveriesBefore` deletes at most `limit` rows
 *   created before `before` and answers how many.
 */
export interface WebhookStore {
  create(input: NewWebhook): Promise<Outcome<WebhookRecord, 'duplicate-url'>>;
  get(accountId: number, id: number): Promise<WebhookRecord | null>;
  list(accountId: number, query: ListQuery): Promise<WebhookRecord[]>;
  update(
    accountId: number,
    id: number,
    patch: WebhookPatch,
  ): Promise<Outcome<WebhookRecord, 'not-found' | 'duplicate-url'>>;
  /** Removes the webhook; answers what was removed, or `null` when there was none. */
  delete(accountId: number, id: number): Promise<WebhookRecord | null>;
  /** The webhooks that must receive an event of the kind `toggle` (the delivery worker calls it per event). */
  listEnabledForEvent(accountId: number, toggle: WebhookToggle): Promise<WebhookRecord[]>;
  /** Records an attempt's result; answers the webhook when this failure disabled it, else `null`. */
  recordDeliveryOutcome(accountId: number, id: number, outcome: WebhookDeliveryOutcome): Promise<WebhookRecord | null>;
  /** Marks `claim.replayId` as the webhook's running replay; `false` when another one runs. */
  claimReplay(accountId: number, id: number, claim: ReplayClaim): Promise<boolean>;
  /** Ends `replayId`'s claim on the webhook (nothing when another replay holds it). */
  releaseReplay(accountId: number, id: number, replayId: string): Promise<void>;
  /** Appends attempts to the delivery log. */
  recordDeliveries(entries: readonly NewWebhookDelivery[]): Promise<void>;
  /** The webhook's delivery log, newest first. */
  listDeliveries(
    accountId: number,
    webhookId: number,
    query: Pick<ListQuery, 'limit' | 'offset'>,
  ): Promise<WebhookDeliveryRecord[]>;
  /** Deletes up to `limit` log rows created before `before` (the retention job); answers how many. */
  deleteDeliveriesBefore(before: EpochNs, limit: number): Promise<number>;
}
