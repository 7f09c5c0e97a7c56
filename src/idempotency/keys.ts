/**
 * Idempotent sends (docs/sending.md, "Idempotent sends"): a client names a send with a key, and a
 * repeat of that send within 24 hours gets the first answer again instead of a second send.
 *
 * The key is written in the very transaction that commits the send (`acceptSend`'s
 * `idempotency` option), so it exists exactly when the send does: a send that was refused or
 * failed leaves no key, and a retry is a new attempt. Two concurrent sends with one key, on one
 * node or on several sharing a database, both reach the commit; the store's claim lets exactly one
 * commit (on PostgreSQL the second waits on the first's row lock), the other's transaction rolls
 * back having written nothing, and it answers with the winner's stored response. So the loser
 * waits for the winner and replays it; there is no "in progress" answer.
 */
import { createHash } from 'node:crypto';
import { UnavailableError, ValidationError } from '../errors.js';
import type { IdempotencyKeyRecord, MailplaneStore } from '../store/index.js';
import type { Clock } from '../model/time.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface IdempotencyDeps {
  readonly store: MailplaneStore;
  readonly clock: Clock;
}

/** Longest idempotency key, in characters (as Stripe's). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** How long a key is remembered after its send: 24 hours. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3_600_000;

/** What a send commits its key with: the key, and the hash of the request it names. */
export interface IdempotencyClaim {
  key: string;
  requestHash: string;
}

/** Thrown inside a send's transaction when another send already holds its key: the transaction rolls back. */
export class IdempotencyKeyTakenError extends Error {
  constructor(readonly claim: IdempotencyClaim) {
    super('the idempotency key was claimed by a concurrent send');
    this.name = 'IdempotencyKeyTakenError';
  }
}

/** A key is 1-255 printable ASCII characters (spaces included); anything else is a 422. */
const KEY_PATTERN = /^[\x20-\x7e]+$/;

/**
 * The key given, checked: `undefined` when none was given. Throws a 422 with
 * `IDEMPOTENCY_KEY_TOO_LONG` (over {@link MAX_IDEMPOTENCY_KEY_LENGTH} characters) or
 * `IDEMPOTENCY_KEY_INVALID` (empty, repeated, or not printable ASCII).
 */
export function checkIdempotencyKey(value: string | string[] | undefined, source: string): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    if (value.length === 1) return checkIdempotencyKey(value[0], source);
    throw new ValidationError(
      `give ${source} once`,
      [{ path: source, message: 'repeated' }],
      'IDEMPOTENCY_KEY_INVALID',
    );
  }
  if (value.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new ValidationError(
      `${source} must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
      [{ path: source, message: 'too long' }],
      'IDEMPOTENCY_KEY_TOO_LONG',
    );
  }
  if (!KEY_PATTERN.test(value) || value.trim() === '') {
    throw new ValidationError(
      `${source} must be 1-${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters`,
      [{ path: source, message: 'invalid' }],
      'IDEMPOTENCY_KEY_INVALID',
    );
  }
  return value;
}

/** JSON with object keys sorted at every level: the same request always gives the same text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return typeof value === 'bigint' ? value.toString() : (JSON.stringify(value) ?? 'null');
}

/**
 * The hash a key is compared by: SHA-256 of the operation's name (`POST /subaccount/email`,
 * `smtp`) and the validated request in canonical JSON. Key order and whitespace do not matter;
 * every value does.
 */
export function requestHash(operation: string, request: unknown): string {
  return createHash('sha256').update(operation).update('\n').update(canonicalJson(request)).digest('hex');
}

/**
 * The claim a request makes with the key it gave (`given`, as the protocol read it, checked by
 * {@link checkIdempotencyKey} under the name `source`), or `undefined` when it gave none. The same
 * key names one request only: `operation` (the route, or `smtp`) and `request` make its hash.
 */
export function idempotencyClaim(
  given: string | string[] | undefined,
  source: string,
  operation: string,
  request: unknown,
): IdempotencyClaim | undefined {
  const key = checkIdempotencyKey(given, source);
  return key === undefined ? undefined : { key, requestHash: requestHash(operation, request) };
}

/**
 * Claims `claim` for the send being committed in `tx` (called by `acceptSend` in its transaction,
 * before anything else is written); throws {@link IdempotencyKeyTakenError} when a live record of
 * the key exists, which rolls the send back.
 */
export async function claimIdempotencyKey(
  tx: MailplaneStore,
  subAccountId: number,
  claim: IdempotencyClaim,
  response: string,
  nowMs: number,
): Promise<void> {
  // Whole milliseconds: the clock has microseconds, the columns hold integers.
  const createdMs = Math.floor(nowMs);
  const record: IdempotencyKeyRecord = {
    subAccountId,
    key: claim.key,
    requestHash: claim.requestHash,
    response,
    createdMs,
    expiresMs: createdMs + IDEMPOTENCY_KEY_TTL_MS,
  };
  if (!(await tx.idempotency.claim(record))) throw new IdempotencyKeyTakenError(claim);
}

/** The answer of an idempotent send: the response JSON as first written, and whether this is a replay. */
export interface IdempotentAnswer {
  response: string;
  replayed: boolean;
}

function replay(stored: IdempotencyKeyRecord, claim: IdempotencyClaim): IdempotentAnswer {
  if (stored.requestHash !== claim.requestHash) {
    throw new ValidationError(
      'this idempotency key was already used for a different request in the last 24 hours; use a new key for a new send',
      [{ path: 'Idempotency-Key', message: 'reused with a different request' }],
      'IDEMPOTENCY_KEY_REUSED',
    );
  }
  return { response: stored.response, replayed: true };
}

/**
 * Runs `send` unless `claim`'s key already names a send of the sub-account: then answers that
 * send's stored response (a replay), or a 422 `IDEMPOTENCY_KEY_REUSED` when the request differs.
 * `send` must commit the claim with its send (`acceptSend(..., { idempotency: claim })`) and
 * answer the JSON it stored; when a concurrent send won the key, its response is answered instead.
 */
export async function sendIdempotently(
  ctx: IdempotencyDeps,
  subAccountId: number,
  claim: IdempotencyClaim,
  send: () => Promise<string>,
): Promise<IdempotentAnswer> {
  const stored = await ctx.store.idempotency.find(subAccountId, claim.key, Math.floor(ctx.clock.now()));
  if (stored) return replay(stored, claim);
  try {
    return { response: await send(), replayed: false };
  } catch (error) {
    if (!(error instanceof IdempotencyKeyTakenError)) throw error;
    const winner = await ctx.store.idempotency.find(subAccountId, claim.key, Math.floor(ctx.clock.now()));
    // The winner's row is committed (the claim saw it live); it can only be gone if it expired
    // since. Then nothing was sent for this request: a retry (503) sends.
    if (!winner) throw new UnavailableError('the idempotency key was released while this request waited for it', error);
    return replay(winner, claim);
  }
}
