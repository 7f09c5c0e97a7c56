/**
 * Errors a job handler throws to steer what happens next. Any other error is a failed attempt:
 * retried with backoff until the kind's `maxAttempts`, then dead.
 */

/** Options of {@link RetryJobError}. */
export interface RetryJobOptions {
  /** When to try again, epoch milliseconds of the runner's clock. */
  runAt: number;
  /**
   * Whether this attempt counts towards `maxAttempts` (default true). False defers the job
   * without using up an attempt: "not now" (a warm-up cap, a rate limit) rather than "failed".
   */
  countAttempt?: boolean;
  cause?: unknown;
}

/** "Try again at `runAt`": overrides the backoff schedule for this attempt. */
export class RetryJobError extends Error {
  readonly runAt: number;
  readonly countAttempt: boolean;
  constructor(message: string, options: RetryJobOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RetryJobError';
    this.runAt = options.runAt;
    this.countAttempt = options.countAttempt ?? true;
  }
}

/** "Do not retry": the job becomes dead at once, kept with this message as its error. */
export class PermanentJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PermanentJobError';
  }
}
