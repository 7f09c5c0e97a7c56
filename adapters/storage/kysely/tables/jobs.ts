import type { DbId, DbInt, DbIntNull } from '../schema.js';

/**
 * The durable job queue. Completed jobs are deleted, so the table holds outstanding work and
 * dead letters only. Times are epoch milliseconds.
 */
export interface JobsTable {
  id: DbId;
  kind: string;
  /** The payload as JSON text. */
  payload: string;
  /** `pending`, `running` or `dead`. */
  state: string;
  /** When the current (or next) attempt is due. */
  run_at: DbInt;
  /**
   * When the job can next be claimed: `run_at` while pending, the lease end while running, NULL
   * when dead. The claim query is one range scan on it, and an expired lease needs no sweeper.
   */
  available_at: DbIntNull;
  locked_by: string | null;
  attempts: DbInt;
  dedupe_key: string | null;
  /** `dedupe_key` while pending or running, NULL otherwise: unique with `kind`. */
  active_dedupe_key: string | null;
  last_error: string | null;
  /** The rank of its class in the claim order: 0 transactional, 1 neutral, 2 bulk (src/store/job-order.ts). */
  priority: DbInt;
  /** Whose share of its class it is served from (the sending sub-account), or NULL. */
  fair_key: string | null;
  /** Its place in its class's fair order: epoch ms of virtual time, never below `run_at`. */
  fair_at: DbInt;
}

/** Tables of the job queue. */
export interface JobTables {
  jobs: JobsTable;
}
