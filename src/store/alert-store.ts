import type { ListQuery } from '../model/paging.js';
import type { EpochNs } from '../model/time.js';
import type { Outcome } from './outcome.js';

/**
 * What an alert rule measures, as the integer `parameter` of the legacy document's `AlertRequest`
 * (docs/reputation.md lists the codes): seven rates in percent of the window's processed mail, and
 * the processed volume itself.
 */
export const AlertParameter = {
  HardBounceRate: 0,
  SoftBounceRate: 1,
  SpamComplaintRate: 2,
  UnsubscribeRate: 3,
  DeliveryRate: 4,
  OpenRate: 5,
  DroppedRate: 6,
  Volume: 7,
} as const;
/** 0 hard-bounce rate, 1 soft-bounce rate, 2 spam-complaint rate, 3 unsubscribe rate, 4 delivery rate, 5 open rate, 6 dropped rate, 7 volume. */
export type AlertParameter = (typeof AlertParameter)[keyof typeof AlertParameter];

/** What an alert rule watches: the whole account, or one of its sub-accounts, IPs, IP pools or sending domains. */
export type AlertEntityType = 'account' | 'subAccount' | 'ip' | 'ipPool' | 'domain';

/** The windows a rule may measure over, in hours: the last hour, the last 24 hours, the last 7 days. */
export type AlertWindowHours = 1 | 24 | 168;

/** An alert rule of an account. */
export interface AlertRecord {
  id: number;
  accountId: number;
  name: string;
  /** An inactive rule is kept but never evaluated. */
  active: boolean;
  entityType: AlertEntityType;
  /** The id of the entity of `entityType` (the account's own id for `account`). */
  entityId: number;
  parameter: AlertParameter;
  /** A percentage (0-100) for a rate, a number of messages for volume. */
  threshold: number;
  /** One mailbox provider (src/routing/providers.ts, 0-11), or `null` for all of them together. */
  provider: number | null;
  /** The least processed volume in the window before a rate counts. */
  processedCountThreshold: number;
  windowHours: AlertWindowHours;
  /** Addresses notified by email; may be empty. */
  emails: string[];
  /** A Slack-compatible incoming webhook, checked as webhook targets are; `null` when none. */
  slackUrl: string | null;
  created: EpochNs;
  updated: EpochNs;
}

/** What {@link AlertStore.create} needs. */
export type NewAlert = Omit<AlertRecord, 'id' | 'updated'>;

/** The fields {@link AlertStore.update} can change; absent fields keep their value. */
export type AlertPatch = Partial<Omit<AlertRecord, 'id' | 'accountId' | 'created' | 'updated'>> & { updated: EpochNs };

/**
 * Storage of alert rules, scoped by `accountId`: another account's rule is indistinguishable from
 * a missing one.
 *
 * - `create` and `update` MUST answer `entity-not-found` (writing nothing) unless the rule's entity
 *   (after the patch: its type and id together) is the account's: the account itself, or a
 *   sub-account, IP, IP pool or sending domain (a domain of one of its sub-accounts) of it.
 * - `list` MUST order by id and match `search` case-insensitively as a substring of the name;
 *   `count` MUST count what `list` would answer without paging.
 * - `listActive` MUST answer only `active` rules, of every account, ordered by id.
 */
/**
 * The automatic protection's stored settings of an account (`subAccountId` 0) or of one of its
 * sub-accounts: JSON the application checks (src/alerts/protection.ts), opaque to the store.
 */
export interface ProtectionSettingsRecord {
  accountId: number;
  subAccountId: number;
  settings: Record<string, unknown>;
  updated: EpochNs;
}

export interface AlertStore {
  create(input: NewAlert): Promise<Outcome<AlertRecord, 'entity-not-found'>>;
  get(accountId: number, id: number): Promise<AlertRecord | null>;
  list(accountId: number, query: ListQuery): Promise<AlertRecord[]>;
  count(accountId: number, search?: string): Promise<number>;
  update(
    accountId: number,
    id: number,
    patch: AlertPatch,
  ): Promise<Outcome<AlertRecord, 'not-found' | 'entity-not-found'>>;
  delete(accountId: number, id: number): Promise<AlertRecord | null>;
  /** Active rules of every account with `id > afterId`, by id, at most `limit`: the evaluation's pages. */
  listActive(afterId: number, limit: number): Promise<AlertRecord[]>;
  /** The account's protection settings rows (its own, `subAccountId` 0, first; then by sub-account). */
  protection(accountId: number): Promise<ProtectionSettingsRecord[]>;
  /**
   * Stores (or with `null` removes) the settings of the account (`subAccountId` 0) or of one of its
   * sub-accounts; answers `false`, writing nothing, for a sub-account not the account's.
   */
  setProtection(
    accountId: number,
    subAccountId: number,
    settings: Record<string, unknown> | null,
    updated: EpochNs,
  ): Promise<boolean>;
}
