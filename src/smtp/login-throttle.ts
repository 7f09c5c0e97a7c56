/**
 * Failed-login accounting of one SMTP listener: per client address and per username, in fixed
 * windows, in two bounded tables. A listener owns one; nothing here is module-level state.
 */
import { isIPv6 } from 'node:net';
import type { Clock } from '../model/time.js';

/** Options of the SMTP relay's failed-login throttle (`loginThrottle`); every field has a default (see docs/smtp-relay.md). */
export interface LoginThrottleOptions {
  /** Length of the window failures are counted in, from the first failure (default 15 minutes). */
  windowMs?: number;
  /** Failures in a window answered without delay (default 3). */
  freeFailures?: number;
  /** Delay of the first failure past the free ones; each further failure doubles it (default 1 s). */
  baseDelayMs?: number;
  /** Longest delay of one failed login's answer (default 8 s). */
  maxDelayMs?: number;
  /** Failures from one client address in a window that lock that address out (default 10). */
  lockoutFailures?: number;
  /** How long a locked-out address is refused, without any credential being checked (default 15 minutes). */
  lockoutMs?: number;
  /** Entries kept per table (addresses, usernames); the least recently failed go first (default 10,000). */
  maxEntries?: number;
}

/** What one failed login costs the client. */
export interface LoginFailure {
  /** How long to wait before answering it. */
  delayMs: number;
  /** The failure locked the client's address out (answer 421 and close). */
  lockedOut: boolean;
}

interface Entry {
  failures: number;
  windowStart: number;
  lockedUntil: number;
}

/** Longest username kept as a key: real ones are far shorter, and an attacker's must not cost memory. */
const MAX_USERNAME_KEY = 256;

/**
 * The key a client address is counted under: an IPv4 address as is, an IPv6 address by its /64,
 * the smallest block a site is given, so that one network cannot spread its attempts over 2^64
 * addresses. IPv4-mapped IPv6 addresses are their IPv4 address.
 */
export function clientKey(remoteAddress: string): string {
  const address = remoteAddress.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '').toLowerCase();
  if (!isIPv6(address)) return address;
  const [head = '', tail] = address.split('%')[0]!.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [
    ...headGroups,
    ...Array<string>(Math.max(0, 8 - headGroups.length - tailGroups.length)).fill('0'),
    ...tailGroups,
  ];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * Counts failed logins per client address and per username and says how long to slow each
 * answer. Addresses are locked out after `lockoutFailures`; usernames are only slowed, never
 * locked, since locking a username would let anyone stop a sub-account's mail (and SMTP passwords
 * are 32 random characters: the delay is defence in depth, not what keeps them safe).
 */
export class LoginThrottle {
  readonly #addresses = new Map<string, Entry>();
  readonly #usernames = new Map<string, Entry>();
  readonly #windowMs: number;
  readonly #free: number;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #lockoutFailures: number;
  readonly #lockoutMs: number;
  readonly #maxEntries: number;

  constructor(
    options: LoginThrottleOptions,
    private readonly clock: Clock,
  ) {
    this.#windowMs = options.windowMs ?? 15 * 60_000;
    this.#free = options.freeFailures ?? 3;
    this.#baseDelayMs = options.baseDelayMs ?? 1_000;
    this.#maxDelayMs = options.maxDelayMs ?? 8_000;
    this.#lockoutFailures = options.lockoutFailures ?? 10;
    this.#lockoutMs = options.lockoutMs ?? 15 * 60_000;
    this.#maxEntries = Math.max(1, options.maxEntries ?? 10_000);
  }

  /** Milliseconds the address (a {@link clientKey}) stays locked out; 0 when it is not. */
  lockedFor(address: string): number {
    const entry = this.#live(this.#addresses, address);
    return entry ? Math.max(0, entry.lockedUntil - this.clock.now()) : 0;
  }

  /** Records a failed login of `username` from `address` (a {@link clientKey}). */
  failure(address: string, username: string): LoginFailure {
    const byAddress = this.#count(this.#addresses, address);
    const byUsername = this.#count(this.#usernames, usernameKey(username));
    const lockedOut = byAddress.failures >= this.#lockoutFailures;
    if (lockedOut) byAddress.lockedUntil = this.clock.now() + this.#lockoutMs;
    return { delayMs: Math.max(this.#delay(byAddress.failures), this.#delay(byUsername.failures)), lockedOut };
  }

  /**
   * A successful login clears its username's failures. The address's are kept: an attacker
   * holding one valid login must not be able to wipe the count between guesses at others.
   */
  success(username: string): void {
    this.#usernames.delete(usernameKey(username));
  }

  /** Entries held (both tables); for tests of the memory bound. */
  get size(): number {
    return this.#addresses.size + this.#usernames.size;
  }

  #delay(failures: number): number {
    if (failures <= this.#free) return 0;
    return Math.min(this.#baseDelayMs * 2 ** Math.min(30, failures - this.#free - 1), this.#maxDelayMs);
  }

  /** The entry of `key` if its window or lockout still runs (an expired one is dropped). */
  #live(table: Map<string, Entry>, key: string): Entry | undefined {
    const entry = table.get(key);
    if (!entry) return undefined;
    const now = this.clock.now();
    if (now - entry.windowStart < this.#windowMs || now < entry.lockedUntil) return entry;
    table.delete(key);
    return undefined;
  }

  /** Adds one failure to `key`, moving it to the end of the table's order (most recent). */
  #count(table: Map<string, Entry>, key: string): Entry {
    const now = this.clock.now();
    const previous = this.#live(table, key);
    const entry =
      previous && now - previous.windowStart < this.#windowMs
        ? previous
        : { failures: 0, windowStart: now, lockedUntil: previous?.lockedUntil ?? 0 };
    entry.failures += 1;
    table.delete(key);
    // A Map iterates in insertion order, so its first key is the one that failed longest ago.
    while (table.size >= this.#maxEntries) table.delete(table.keys().next().value!);
    table.set(key, entry);
    return entry;
  }
}

const usernameKey = (username: string) => username.slice(0, MAX_USERNAME_KEY).toLowerCase();
