/**
 * Wake-ups of job runners: a runner polls, and is woken at once when jobs are enqueued, by this
 * process (its job queue, after the enqueuing transaction commits) or by any other node sharing
 * the database (`MailplaneStore.onJobsDue`: the Kysely store on PostgreSQL listens on
 * `mailplane_jobs`, adapters/storage/kysely/jobs-due.ts). Either source may miss a wake-up or
 * give a spurious one; the poll stays as the fallback, so a wake-up only ever shortens a wait.
 */
import type { MailplaneStore } from '../store/index.js';

/** The process's own source of wake-ups: the job queue (`JobQueue.subscribe`). */
export interface LocalWakeUps {
  subscribe(listener: () => void): () => void;
}

/**
 * Calls `wake` whenever jobs may have become due, from `local` (this process's enqueues) and from
 * `store` (other processes' enqueues, when the store can tell); answers the one function that
 * stops both.
 */
export function subscribeToWakeUps(
  sources: { local?: LocalWakeUps; store: Pick<MailplaneStore, 'onJobsDue'> },
  wake: () => void,
): () => void {
  const unsubscribeLocal = sources.local?.subscribe(wake);
  const unsubscribeStore = sources.store.onJobsDue?.(wake);
  return () => {
    unsubscribeLocal?.();
    unsubscribeStore?.();
  };
}
