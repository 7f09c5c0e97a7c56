import type { EpochNs } from '../model/time.js';

/** An account: the operator level that owns sub-accounts, IPs, pools and webhooks. */
export interface AccountRecord {
  id: number;
  name: string;
  /** Keyed hash of the account API key (see `SecretBox.lookupHash`); the lookup key. */
  apiKeyHash: string;
  /** The account API key, encrypted at rest. */
  apiKeySealed: string;
  created: EpochNs;
}

/** What {@link AccountStore.create} needs. */
export type NewAccount = Omit<AccountRecord, 'id'>;

/**
 * Storage of accounts.
 *
 * - `findByApiKeyHash` MUST be a single indexed lookup: it runs on every account-level request.
 * - `apiKeyHash` MUST be unique across accounts.
 */
export interface AccountStore {
  create(input: NewAccount): Promise<AccountRecord>;
  get(id: number): Promise<AccountRecord | null>;
  /** The account whose key hashes to `apiKeyHash`, or `null`. */
  findByApiKeyHash(apiKeyHash: string): Promise<AccountRecord | null>;
  /** The oldest account, or `null` when there is none yet (used to bootstrap a single-account server). */
  first(): Promise<AccountRecord | null>;
  /** Replaces the account key (rotation, or adopting a key given by configuration). */
  setApiKey(id: number, apiKeyHash: string, apiKeySealed: string): Promise<void>;
}
