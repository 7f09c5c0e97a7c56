/** One attempt to use `cost` units of a bucket's allowance in the fixed window starting at `windowStart`. */
export interface RateLimitHit {
  /**
   * Whose allowance: a name derived from the caller, e.g. `subaccount:12:recipients` (at most 200
   * characters). Never a key or any other secret: buckets are stored in clear.
   */
  bucket: string;
  /** Start of the current window in epoch milliseconds (an integer), the same arithmetic on every node. */
  windowStart: number;
  /** Units this hit uses: 1 for a request, or the recipients of a send (an integer; 0 only reads the use). */
  cost: number;
  /** Units the bucket may use per window (a positive integer). */
  limit: number;
}

/** What a {@link RateLimitHit} found. */
export interface RateLimitUsage {
  /** Whether the hit fitted (`used before + cost <= limit`) and was added. */
  admitted: boolean;
  /** Units used in the window after this hit: including it when admitted, without it when not. */
  used: number;
  /** The window `used` belongs to: the later of the stored window and the hit's. */
  windowStart: number;
}

/**
 * Fixed-window rate-limit counters, shared by every node on the same database.
 *
 * - `hit` applies its hits in the order given and answers one {@link RateLimitUsage} per hit, in
 *   the same order; a later hit of the same bucket sees the earlier ones. (A batch lets a caller
 *   pay one round of connection hand-over for many requests; it need not be one transaction.)
 * - Each hit MUST be one atomic step on its bucket: 50 concurrent hits of cost 1 under a large
 *   limit add exactly 50, whether they come through one store instance or several on the same
 *   database, and the units admitted in one window MUST NOT exceed `limit` under any interleaving.
 * - A hit MUST be added only when it fits; a refused hit changes nothing but is answered with the
 *   window's current use.
 * - A hit for a window later than the stored one MUST start the bucket afresh at that window; a hit
 *   for the stored window or an earlier one (a node whose clock lags) MUST count in the stored one.
 * - Storage MUST NOT grow with the number of hits: one record per bucket at most.
 * - `prune(before, max)` MUST delete at most `max` buckets whose window started before `before`,
 *   and no other, and return how many it deleted.
 */
export interface RateLimitStore {
  hit(hits: readonly RateLimitHit[]): Promise<RateLimitUsage[]>;
  prune(before: number, max: number): Promise<number>;
}
