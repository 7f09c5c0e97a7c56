/**
 * Rate limits of the API and the SMTP relay: a fixed one-minute window per account or sub-account
 * and allowance, counted in the store so that every node on one database shares it. Each limited
 * request or relayed message costs one small atomic statement (`RateLimitStore.hit`), and the hits
 * that arrive in the same turn of the event loop or while others are being counted are counted
 * together in one store call (src/store/batcher.ts; on SQLite: one turn of its single connection
 * and one commit). Stale counters are pruned once per window by whichever node notices the
 * change first.
 *
 * When the store cannot write a counter (a full disk, a read-only database, one that cannot be
 * reached: an `UnavailableError`), the limiter fails open: the use is allowed uncounted, and one
 * warning a window says so. Failing closed would turn every read into a 503 while nothing is
 * wrong with reading, and would protect nothing: the writes the limits exist to bound (sends,
 * changes) fail on the same store anyway, with their own 503 (docs/security.md, "HTTP API and
 * link endpoints").
 */
import { createBatcher } from '../store/batcher.js';
import { withDefaults } from '../model/defaults.js';
import { errorKindOf, RateLimitedError } from '../errors.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../model/time.js';
import type { MailplaneStore, RateLimitHit, RateLimitUsage } from '../store/index.js';

/** How much one API key may do per minute. */
export interface RateLimitConfig {
  /**
   * Requests a minute per key on every route except the send endpoint (default 6,000, i.e. 100 a
   * second; SendGrid allows 600 a minute on its management endpoints, Brevo 150 a second).
   */
  requestsPerMinute: number;
  /**
   * Recipients (each `to` entry plus its `cc` and `bcc` copies) a minute per sub-account through
   * `POST /subaccount/email`, which counts recipients instead of requests, and through the SMTP
   * relay, whose envelope recipients draw from the same counter (default 600,000, i.e. 10,000 a
   * second: 36 million an hour, beyond what one node accepts for personalised mail).
   */
  recipientsPerMinute: number;
}

/** The defaults: generous enough that a real sender does not meet them in normal use. */
export const defaultRateLimitConfig: RateLimitConfig = { requestsPerMinute: 6_000, recipientsPerMinute: 600_000 };

/** Length of a rate-limit window. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

/** Most stale counters deleted per statement when a new window starts. */
const PRUNE_BATCH = 1_000;

/** Most hits counted in one store call. */
const MAX_HIT_BATCH = 256;

/**
 * `MailplaneOptions.rateLimits` with defaults filled in; `false` turns rate limiting off. The
 * values are checked before, with the other options of `createMailplane` (src/options.ts).
 */
export function resolveRateLimitConfig(options: Partial<RateLimitConfig> | false | undefined): RateLimitConfig | false {
  return options === false ? false : withDefaults(defaultRateLimitConfig, options);
}

/** Which allowance a route draws from: one unit per request, or one per recipient (the send endpoint). */
export type RateLimitAllowance = 'requests' | 'recipients';

/** The outcome of one limited request: the headers to answer with, and the error when refused. */
export interface RateLimitDecision {
  /** `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (epoch seconds of the window's end). */
  headers: Record<string, string>;
  /** Set when the request is refused. */
  refusal?: RateLimitedError;
}

/** Whose allowance a use draws from: an account (its key) or a sub-account (its key, and its SMTP logins). */
export interface RateLimitOwner {
  kind: 'account' | 'subaccount';
  id: number;
}

/** Counts uses against their owner's allowance; built once per router and once per SMTP relay. */
export interface RateLimiter {
  hit(owner: RateLimitOwner, allowance: RateLimitAllowance, cost: number): Promise<RateLimitDecision>;
}

/** The counter of an owner's allowance, named by the owner (never by a key or a password). */
function bucketOf(owner: RateLimitOwner, allowance: RateLimitAllowance): string {
  return `${owner.kind}:${owner.id}:${allowance}`;
}

function refusalMessage(
  allowance: RateLimitAllowance,
  limit: number,
  remaining: number,
  cost: number,
  retryAfter: number,
): string {
  if (allowance === 'requests')
    return `too many requests: this key may make ${limit} requests a minute; retry in ${retryAfter} s`;
  if (cost > limit) {
    return `this request names ${cost} recipients, more than this sub-account may send to in a minute (${limit}); split it into smaller requests`;
  }
  return `too many recipients: this sub-account may send to ${limit} recipients a minute and ${remaining} remain in this minute, fewer than the ${cost} of this request; retry in ${retryAfter} s`;
}

/**
 * The uses a limiter let through uncounted while its store could not write, told to the log once a
 * window rather than once a use: a busy API on a full disk would otherwise add a warning line (a
 * write, often to the same disk) to every request.
 */
function createUncountedLog(ctx: Pick<RateLimiterDeps, 'logger'>) {
  let uncounted = 0;
  let warnedAt = -Infinity;
  return {
    /** One use let through because `error` kept its counter from being written. */
    add(error: unknown, now: number): void {
      uncounted++;
      if (now - warnedAt < RATE_LIMIT_WINDOW_MS) return;
      ctx.logger.warn(
        'rate limits are not counted: the store cannot write their counters, so requests are served uncounted until it can',
        {
          error: error instanceof Error ? error.message : String(error),
          uncountedSinceLastWarning: uncounted,
        },
      );
      warnedAt = now;
      uncounted = 0;
    },
    /** A counter was written: says so once after uncounted uses, with how many were not told yet. */
    counted(): void {
      if (warnedAt === -Infinity) return;
      ctx.logger.info('rate limits are counted again', { uncountedSinceLastWarning: uncounted });
      warnedAt = -Infinity;
      uncounted = 0;
    },
  };
}

/** What a {@link RateLimiter} works with: the counters' store, the clock of their windows, the log. */
export interface RateLimiterDeps {
  readonly store: MailplaneStore;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** A {@link RateLimiter} on `ctx.store.rateLimits` and `ctx.clock`; fails open while the store cannot write (see the module comment). */
export function createRateLimiter(ctx: RateLimiterDeps, config: RateLimitConfig): RateLimiter {
  let prunedBefore = 0;
  const uncountedLog = createUncountedLog(ctx);
  type Waiting = { hit: RateLimitHit; resolve: (usage: RateLimitUsage) => void; reject: (error: unknown) => void };
  // The hits of one turn of the event loop, or that arrive while others are counted, go together.
  const hits = createBatcher<Waiting>(
    async (batch) => {
      try {
        const usages = await ctx.store.rateLimits.hit(batch.map((entry) => entry.hit));
        batch.forEach((entry, i) => entry.resolve(usages[i]!));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    },
    { maxBatch: MAX_HIT_BATCH },
  );
  const count = (hit: RateLimitHit) =>
    new Promise<RateLimitUsage>((resolve, reject) => hits.add({ hit, resolve, reject }));
  const prune = async (before: number) => {
    // Bounded statements: a window's stale buckets go in batches, never in one unbounded delete.
    while ((await ctx.store.rateLimits.prune(before, PRUNE_BATCH)) === PRUNE_BATCH);
  };

  return {
    async hit(owner, allowance, cost) {
      const now = ctx.clock.now();
      const windowStart = Math.floor(now / RATE_LIMIT_WINDOW_MS) * RATE_LIMIT_WINDOW_MS;
      // Counters of the previous window stay: a node whose clock lags a little still counts there.
      const before = windowStart - RATE_LIMIT_WINDOW_MS;
      if (before > prunedBefore) {
        prunedBefore = before;
        prune(before).catch((error: unknown) => {
          ctx.logger.warn('pruning rate-limit counters failed', {
            error: error instanceof Error ? error.message : String(error),
          });
        });
      }
      const limit = allowance === 'recipients' ? config.recipientsPerMinute : config.requestsPerMinute;
      let usage: RateLimitUsage;
      try {
        usage = await count({ bucket: bucketOf(owner, allowance), windowStart, cost, limit });
      } catch (error) {
        // Only a store that cannot write now; any other failure is a fault and is answered as one.
        if (errorKindOf(error) !== 'unavailable') throw error;
        uncountedLog.add(error, now);
        return { headers: {} };
      }
      uncountedLog.counted();
      const resetMs = usage.windowStart + RATE_LIMIT_WINDOW_MS;
      const remaining = Math.max(0, limit - usage.used);
      const headers = {
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': String(Math.ceil(resetMs / 1000)),
      };
      if (usage.admitted) return { headers };
      const retryAfter = Math.max(1, Math.ceil((resetMs - now) / 1000));
      return {
        headers,
        refusal: new RateLimitedError(refusalMessage(allowance, limit, remaining, cost, retryAfter), retryAfter),
      };
    },
  };
}
