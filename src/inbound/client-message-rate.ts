/**
 * Messages a minute per client address on the inbound listener: each `MAIL FROM` takes one from the
 * address's allowance, which refills evenly over the minute (a token bucket, so a client that keeps
 * within the rate never meets a window's edge). Addresses are grouped as the connection cap groups
 * them (an IPv6 client by its /64, `clientKey`). One listener owns one; the table is bounded.
 */
import { clientKey } from '../smtp/login-throttle.js';
import type { Clock } from '../model/time.js';

/** Addresses tracked at once; beyond it the one seen longest ago is forgotten (it starts full again). */
const MAX_TRACKED_ADDRESSES = 10_000;
const MINUTE_MS = 60_000;

interface Bucket {
  tokens: number;
  at: number;
}

/** The per-address message rate of one listener. */
export class ClientMessageRate {
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    /** Messages a minute one client address may begin. */
    readonly perMinute: number,
    private readonly clock: Clock,
  ) {}

  /** Takes one message from `remoteAddress`'s allowance; `false` (nothing taken) when it has none left. */
  take(remoteAddress: string): boolean {
    const key = clientKey(remoteAddress);
    const now = this.clock.now();
    const previous = this.#buckets.get(key);
    const refilled = previous
      ? Math.min(this.perMinute, previous.tokens + ((now - previous.at) * this.perMinute) / MINUTE_MS)
      : this.perMinute;
    const admitted = refilled >= 1;
    // Re-inserted at the end: a Map iterates in insertion order, so its first key is the one seen longest ago.
    this.#buckets.delete(key);
    while (this.#buckets.size >= MAX_TRACKED_ADDRESSES) this.#buckets.delete(this.#buckets.keys().next().value!);
    this.#buckets.set(key, { tokens: admitted ? refilled - 1 : refilled, at: now });
    return admitted;
  }

  /** Addresses tracked; for tests of the bound. */
  get size(): number {
    return this.#buckets.size;
  }
}
