/**
 * One idempotency key of a sub-account: the send it was first used for, stored in the same
 * transaction as that send (docs/sending.md, "Idempotent sends").
 */
export interface IdempotencyKeyRecord {
  subAccountId: number;
  /** The key as the client gave it (1-255 characters; compared exactly). */
  key: string;
  /** Hex SHA-256 of the canonical request the key was first used with. */
  requestHash: string;
  /** The JSON answered to that request, exactly as it was written. */
  response: string;
  /** Epoch milliseconds of the send (an integer, as every time below). */
  createdMs: number;
  /** Epoch milliseconds from which the key is forgotten (a request with it is then a new send). */
  expiresMs: number;
}

/**
 * Idempotency keys, per sub-account.
 *
 * - `claim` MUST insert `record` unless a record of the same sub-account and key exists whose
 *   `expiresMs` is after `record.createdMs`; an expired one is replaced. It answers whether it
 *   wrote. It is one atomic step: of concurrent claims of one key, through one store or several
 *   on the same database, exactly one wins (on PostgreSQL a second waits for the first's
 *   transaction, and wins only if that one rolls back). Callers run it in the transaction of the
 *   send, so the key exists exactly when the send does.
 * - `find` answers the record unless it is absent or expired at `nowMs`.
 * - `deleteExpired` MUST delete at most `limit` records expired at `nowMs`, and no other, and
 *   answer how many it deleted.
 */
export interface IdempotencyStore {
  claim(record: IdempotencyKeyRecord): Promise<boolean>;
  find(subAccountId: number, key: string, nowMs: number): Promise<IdempotencyKeyRecord | null>;
  deleteExpired(nowMs: number, limit: number): Promise<number>;
}
