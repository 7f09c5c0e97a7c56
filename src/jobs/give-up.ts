/**
 * How a job whose give-up could not be recorded is told from the others (`JobKindOptions.giveUp`):
 * it is kept pending with its reason in `lastError` behind a marker, so the next claim, by any
 * worker, gives up again rather than running the handler of a job already given up on.
 */

/** What starts the `lastError` of a job whose give-up is still to be recorded. */
const GIVING_UP = 'giving up: ';

/** Longest error text kept on a job: enough for an SMTP reply or a stack's first line. */
export const MAX_ERROR_LENGTH = 2_000;

/** The `lastError` of a job whose give-up for `reason` failed and is to be made again. */
export function givingUp(reason: string): string {
  return `${GIVING_UP}${reason}`.slice(0, MAX_ERROR_LENGTH);
}

/** The reason of a give-up still to be made for `job`, or `null` when none is pending. */
export function pendingGiveUp(job: { lastError: string | null }): string | null {
  return job.lastError?.startsWith(GIVING_UP) ? job.lastError.slice(GIVING_UP.length) : null;
}
