import type { ListQuery } from '../model/paging.js';
import type { EpochNs } from '../model/time.js';
import type { Outcome } from './outcome.js';

/** Sub-account types of the spec. */
export const SubAccountType = { Default: 0, Custom: 1 } as const;
/** 0 = Default (primary, cannot be deleted), 1 = Custom. */
export type SubAccountType = (typeof SubAccountType)[keyof typeof SubAccountType];

/** A sub-account: the tenant that sends mail and owns domains, suppressions and statistics. */
export interface SubAccountRecord {
  id: number;
  accountId: number;
  /** Display name, unique within the account compared case-insensitively. */
  name: string;
  companyName: string;
  type: SubAccountType;
  isPlus: boolean;
  blocked: boolean;
  /** When it was blocked, or `0n` when it is not. */
  blockedAt: EpochNs;
  blockReason: string;
  hbExempt: boolean;
  generateWeeklyReport: boolean;
  /** Keyed hash of the sub-account API key; the lookup key. */
  apiKeyHash: string;
  /** The sub-account API key, encrypted at rest. */
  apiKeySealed: string;
  /** IP pool used when a send names none; `null` means the account's default system pool. */
  defaultIpPoolId: number | null;
  created: EpochNs;
  updated: EpochNs;
  /** Days its messages and events are kept (1 to 3,650), or `null` for the instance's retention. */
  retentionDays: number | null;
}

/** SMTP relay credentials of a sub-account. */
export interface SmtpAuthRecord {
  id: number;
  subAccountId: number;
  /** Unique across all accounts: the relay finds the sub-account by it. */
  username: string;
  passwordHash: string;
  passwordSealed: string;
  created: EpochNs;
  updated: EpochNs;
}

/** What {@link SubAccountStore.create} needs: the sub-account and its first SMTP credentials. */
export interface NewSubAccount {
  accountId: number;
  name: string;
  companyName: string;
  type: SubAccountType;
  apiKeyHash: string;
  apiKeySealed: string;
  created: EpochNs;
  smtpAuth: Pick<SmtpAuthRecord, 'username' | 'passwordHash' | 'passwordSealed'>;
}

/** The fields {@link SubAccountStore.update} can change. */
export interface SubAccountPatch {
  name?: string;
  blocked?: boolean;
  blockedAt?: EpochNs;
  blockReason?: string;
  defaultIpPoolId?: number | null;
  retentionDays?: number | null;
  updated: EpochNs;
}

/** A sub-account whose messages and events are kept for a number of days of its own. */
export interface RetentionOverride {
  accountId: number;
  subAccountId: number;
  retentionDays: number;
}

/**
 * Storage of sub-accounts and their SMTP credentials. Every read and write is scoped by
 * `accountId`: a sub-account of another account is indistinguishable from a missing one.
 *
 * - `create` MUST be atomic (sub-account and SMTP credentials together) and MUST answer
 *   `duplicate-name` when the account already has a sub-account whose name equals `name`
 *   case-insensitively, also under concurrent creates.
 * - `list` MUST order by id ascending and match `search` case-insensitively as a substring.
 * - `findByApiKeyHash` and `findBySmtpUsername` MUST be indexed lookups.
 * - `delete` MUST remove the SMTP credentials with the sub-account.
 */
export interface SubAccountStore {
  create(input: NewSubAccount): Promise<Outcome<SubAccountRecord, 'duplicate-name'>>;
  get(accountId: number, id: number): Promise<SubAccountRecord | null>;
  list(accountId: number, query: ListQuery): Promise<SubAccountRecord[]>;
  /** The default (type 0) sub-account of the account, or `null`. */
  getDefault(accountId: number): Promise<SubAccountRecord | null>;
  update(
    accountId: number,
    id: number,
    patch: SubAccountPatch,
  ): Promise<Outcome<SubAccountRecord, 'not-found' | 'duplicate-name'>>;
  delete(accountId: number, id: number): Promise<boolean>;
  findByApiKeyHash(apiKeyHash: string): Promise<SubAccountRecord | null>;
  /** SMTP credentials of the given sub-accounts, ordered by id. */
  listSmtpAuths(subAccountIds: readonly number[]): Promise<SmtpAuthRecord[]>;
  /** The SMTP credentials with that username and their sub-account (the relay's login), or `null`. */
  findBySmtpUsername(username: string): Promise<{ subAccount: SubAccountRecord; smtpAuth: SmtpAuthRecord } | null>;
  /** Every sub-account of the instance with a `retentionDays` of its own, ordered by id (the retention job's list). */
  listRetentionOverrides(): Promise<RetentionOverride[]>;
}
