/** What becomes of one attempt of a job, decided from how its handler ended. */
import type { JobRecord } from '../store/index.js';
import { PermanentJobError, RetryJobError } from './errors.js';
import { MAX_ERROR_LENGTH } from './give-up.js';
import type { Kind } from './runner-kinds.js';

/** What becomes of an attempt. */
export type Verdict =
  | { type: 'complete' }
  | { type: 'retry'; runAt: number; error: string }
  | { type: 'defer'; runAt: number }
  | { type: 'dead'; error: string }
  /** The kind's `giveUp` failed: the job is kept, to give up again at `runAt`. */
  | { type: 'give-up-later'; runAt: number; reason: string; error: string };

/** An error as one line for the job's `lastError` and the logs, bounded. */
export const describeJobError = (error: unknown): string =>
  (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, MAX_ERROR_LENGTH);

/** The verdict on a handler that threw `error`, at `nowMs`. */
export function verdictOf(error: unknown, job: JobRecord, kind: Kind, nowMs: number): Verdict {
  if (error instanceof PermanentJobError) return { type: 'dead', error: describeJobError(error) };
  if (error instanceof RetryJobError && !error.countAttempt) return { type: 'defer', runAt: error.runAt };
  if (job.attempts >= kind.maxAttempts) {
    return { type: 'dead', error: `${describeJobError(error)} (gave up after ${job.attempts} attempts)` };
  }
  if (error instanceof RetryJobError) return { type: 'retry', runAt: error.runAt, error: describeJobError(error) };
  return { type: 'retry', runAt: nowMs + kind.backoff(job.attempts), error: describeJobError(error) };
}

/**
 * The verdict on a job claimed once more than its kind allows: claims count attempts, so a job
 * whose handler keeps killing its process (or outlasting its lease) ends here instead of being
 * retried forever.
 */
export function abandoned(job: JobRecord): Verdict {
  const last = job.lastError === null ? '' : ` (last error: ${job.lastError})`;
  return {
    type: 'dead',
    error: `abandoned: ${job.attempts - 1} attempts ended without an outcome${last}`.slice(0, MAX_ERROR_LENGTH),
  };
}
