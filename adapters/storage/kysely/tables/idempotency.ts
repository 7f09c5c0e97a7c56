import type { DbInt } from '../schema.js';

/** One idempotency key of a sub-account (migration 0018). */
export interface IdempotencyKeysTable {
  sub_account_id: DbInt;
  key: string;
  request_hash: string;
  response: string;
  created_ms: DbInt;
  expires_ms: DbInt;
}

/** Tables of idempotent sends. */
export interface IdempotencyTables {
  idempotency_keys: IdempotencyKeysTable;
}
