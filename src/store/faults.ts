/**
 * The storage contract says an infrastructure fault throws {@link StorageError} with `cause`;
 * drivers throw their own errors (better-sqlite3's `SqliteError`, pg's `DatabaseError`, node's
 * `ECONNREFUSED`). {@link withStorageFaults} wraps a store once, in `createMailplane`, so every
 * store, the Kysely one or a custom one, keeps that promise: whatever a call throws that is not
 * already a mailplane error becomes an {@link UnavailableError} when the database cannot be reached
 * or cannot write now (full, read-only, locked: retrying later may succeed: HTTP 503 with
 * `Retry-After`, SMTP 451) and a {@link StorageError} otherwise. Return
 * values (`null`, `Outcome`) pass through untouched, as do errors thrown by the work of a transaction.
 *
 * The fault codes below are standards, not drivers (src/ imports none): node's socket errno codes,
 * PostgreSQL's SQLSTATE classes, SQLite's result codes; plus the few messages the pooling layers
 * throw without a code. A custom store whose driver says "unreachable" otherwise can throw
 * `UnavailableError` itself: mailplane errors are never rewrapped.
 */
import { MailplaneError, StorageError, UnavailableError } from '../errors.js';
import type { MailplaneStore } from './index.js';

/** Node's errors for a peer that cannot be reached or went away. */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/**
 * SQLSTATEs of a PostgreSQL server that cannot serve now, or cannot write now: class 08 (connection
 * exception); 57P01-03 and 57P05 (admin shutdown, crash shutdown, cannot connect now: a restart;
 * idle session timeout); 53000-53300 (insufficient resources, disk full, out of memory, too many
 * connections); 25006 (a read-only transaction: a primary demoted to a standby, or
 * `default_transaction_read_only`); 58030 (an I/O error of the server's disk). Not 53400
 * (configuration limit exceeded): that is one query beyond a limit, and would fail again.
 */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[1-35]|53[0-3]00|25006|58030)$/;

/**
 * SQLite result codes (extended ones included) of a database that cannot be used or written now:
 * locked by another connection beyond the busy timeout (BUSY, LOCKED), its disk full (FULL), its
 * file or directory read-only (READONLY), a failing disk (IOERR), a file it cannot open (CANTOPEN).
 * Each can end without mailplane changing anything (space freed, permissions fixed), so the
 * caller is told to retry rather than that mailplane failed.
 */
const UNAVAILABLE_SQLITE = /^SQLITE_(BUSY|LOCKED|FULL|READONLY|IOERR|CANTOPEN)(_|$)/;

/** What pools and drivers throw without a code when there is no connection to be had. */
const UNAVAILABLE_MESSAGES = [
  /timeout exceeded when trying to connect/i, // pg-pool: no client within connectionTimeoutMillis
  /^Connection terminated/i, // pg: the server closed the connection, or it timed out
  /is not queryable/i, // pg: a client that already failed
  /Cannot use a pool after calling end/i, // pg-pool: a closed store
  /database connection is not open/i, // better-sqlite3: a closed store
  /driver has already been destroyed/i, // kysely: a closed store
];

/** The error, its causes and, for an AggregateError (one per address tried), its members. */
function* chain(error: unknown, depth = 0): Generator<unknown> {
  if (depth > 4 || error === undefined || error === null) return;
  yield error;
  if (error instanceof AggregateError) for (const member of error.errors) yield* chain(member, depth + 1);
  if (error instanceof Error && error.cause !== error) yield* chain(error.cause, depth + 1);
}

/** True when `error` says the database cannot be reached now, rather than that a call went wrong. */
export function isUnavailableFault(error: unknown): boolean {
  for (const link of chain(error)) {
    const code = (link as { code?: unknown } | null)?.code;
    if (
      typeof code === 'string' &&
      (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SQLITE.test(code))
    )
      return true;
    const message = link instanceof Error ? link.message : '';
    if (UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  }
  return false;
}

/**
 * `error`, thrown by the store call `call` (e.g. `messages.insertAccepted`), as the contract wants
 * it: a mailplane error as it is, else an {@link UnavailableError} or a {@link StorageError} with
 * `error` as `cause`.
 */
export function storageFault(error: unknown, call: string): MailplaneError {
  if (error instanceof MailplaneError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return isUnavailableFault(error)
    ? new UnavailableError(`storage unavailable in ${call}: ${detail}`, error)
    : new StorageError(`storage failed in ${call}: ${detail}`, error);
}

/** Marks a store (and, through the prototype chain, decorators built on it) as already wrapped. */
const WRAPPED = Symbol.for('mailplane.storageFaults');

/** `fn` called on `self`, its faults (thrown or rejected) turned by {@link storageFault}. */
function guardMethod(fn: (...args: unknown[]) => unknown, self: object, call: string): (...args: unknown[]) => unknown {
  const fault = (error: unknown): never => {
    throw storageFault(error, call);
  };
  return (...args) => {
    let result: unknown;
    try {
      result = fn.apply(self, args);
    } catch (error) {
      fault(error);
    }
    return typeof (result as PromiseLike<unknown> | null)?.then === 'function'
      ? (result as PromiseLike<unknown>).then(undefined, fault)
      : result;
  };
}

/**
 * `target` seen through a proxy whose methods are guarded (and whose objects, with `nested`, are
 * proxied the same way), each made once, on first use. The proxy's own target is an empty object
 * inheriting from `target`, so a frozen store breaks no proxy invariant and `in` still works.
 */
function guarded<T extends object>(target: T, path: string, nested: (value: object, key: string) => unknown): T {
  const made = new Map<PropertyKey, unknown>();
  return new Proxy(Object.create(target) as T, {
    get(_shell, key) {
      if (key === WRAPPED) return true;
      if (made.has(key)) return made.get(key);
      const value: unknown = Reflect.get(target, key);
      const name = typeof key === 'symbol' ? key.toString() : `${path}${key}`;
      let wrapped: unknown;
      if (typeof value === 'function') wrapped = guardMethod(value as (...args: unknown[]) => unknown, target, name);
      else if (value !== null && typeof value === 'object') wrapped = nested(value, name);
      else return value;
      made.set(key, wrapped);
      return wrapped;
    },
  });
}

function wrapStore(store: MailplaneStore): MailplaneStore {
  const wrapped = guarded(store, '', (part, name) => guarded(part, `${name}.`, (value) => value));
  /**
   * Faults of the transaction itself (BEGIN, COMMIT) are turned; what `work` throws is its own
   * (a RetryJobError, a ValidationError) and goes through as it is.
   */
  const transaction = async <T>(work: (tx: MailplaneStore) => Promise<T>): Promise<T> => {
    let own: { error: unknown } | undefined;
    try {
      return await store.transaction(async (tx) => {
        try {
          return await work(withStorageFaults(tx));
        } catch (error) {
          own = { error };
          throw error;
        }
      });
    } catch (error) {
      if (own && own.error === error) throw error;
      throw storageFault(error, 'transaction');
    }
  };
  return Object.create(wrapped, { transaction: { value: transaction } }) as MailplaneStore;
}

/**
 * `store` with the storage contract's fault rule enforced (see the module comment). A store that
 * is already wrapped, or a decorator built on one by prototype, is returned as it is, so wrapping twice costs nothing.
 *
 * @example
 * const store = withStorageFaults(await openKyselyStore({ url }));
 * await store.accounts.get(1); // a refused connection rejects with UnavailableError, cause ECONNREFUSED
 */
export function withStorageFaults(store: MailplaneStore): MailplaneStore {
  if ((store as unknown as Record<symbol, unknown>)[WRAPPED] === true) return store;
  return wrapStore(store);
}
