/** How long messages and events are kept (`MailplaneOptions.retention`; docs/activity.md). */
export interface RetentionConfig {
  /** Days a message (by `submittedAt`) and an event (by its time) are kept; 0 keeps them forever. Default 30. */
  days: number;
  /** Rows deleted per statement (default 1,000): each statement holds its locks briefly. */
  batchSize: number;
  /** Statements per table in one run of the job before it yields to other jobs (default 50). */
  batchesPerRun: number;
  /** How long after a run that found nothing more to delete the next one is due (default 1 hour). */
  intervalMs: number;
}

/** The longest retention a sub-account can set for itself (ten years). */
export const MAX_RETENTION_DAYS = 3650;

/** Default {@link RetentionConfig.days}. */
export const DEFAULT_RETENTION_DAYS = 30;

/** Fills the unset fields of a partial configuration with the defaults. */
export function resolveRetentionConfig(partial: Partial<RetentionConfig> = {}): RetentionConfig {
  const whole = (value: number | undefined, fallback: number, min: number) =>
    value === undefined || !Number.isInteger(value) || value < min ? fallback : value;
  return {
    days: whole(partial.days, DEFAULT_RETENTION_DAYS, 0),
    batchSize: whole(partial.batchSize, 1_000, 1),
    batchesPerRun: whole(partial.batchesPerRun, 50, 1),
    intervalMs: whole(partial.intervalMs, 3_600_000, 1),
  };
}
