import type { DbFlag, DbId, DbInt } from '../schema.js';

/** One sending domain; see `DomainRecord` for the meaning of each column. */
export interface DomainsTable {
  id: DbId;
  sub_account_id: DbInt;
  /** Already normalised (lower-case ASCII) by the core, so uniqueness needs no separate key column. */
  name: string;
  dkim_selector: string;
  dkim_public_key: string;
  /** The private key as SecretBox ciphertext; plaintext never reaches the database. */
  dkim_private_key_sealed: string;
  return_path_host: string;
  return_path_target: string;
  track_host: string;
  track_target: string;
  dkim_verified: DbFlag;
  spf_verified: DbFlag;
  dmarc_verified: DbFlag;
  return_path_verified: DbFlag;
  track_verified: DbFlag;
  verified: DbFlag;
  dkim_failure_reason: string;
  spf_failure_reason: string;
  dmarc_failure_reason: string;
  track_failure_reason: string;
  return_path_failure_reason: string;
  dns_provider: string;
  domain_registered_date: string;
  last_checked_at: DbInt;
  created: DbInt;
  updated: DbInt;
  /** DKIM rotation (migration 0021): the pending key (selector `''`: none) and the previous one. */
  dkim_pending_selector: string;
  dkim_pending_public_key: string;
  dkim_pending_private_key_sealed: string;
  dkim_pending_created: DbInt;
  dkim_pending_failure_reason: string;
  dkim_previous_selector: string;
  dkim_previous_public_key: string;
  dkim_previous_retire_at: DbInt;
  dkim_rotated_at: DbInt;
}

/** The tables of the domains area. */
export interface DomainTables {
  domains: DomainsTable;
}
