import { withDefaults } from '../model/defaults.js';

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

/** The defaults of {@link RetentionConfig}. */
export const defaultRetentionConfig: Readonly<RetentionConfig> = Object.freeze({
  days: DEFAULT_RETENTION_DAYS,
  batchSize: 1_000,
  batchesPerRun: 50,
  intervalMs: 3_600_000,
});

/**
 * Fills the unset fields of a partial configuration with the defaults. The values are checked
 * before, with the other options of `createMailplane` (src/options.ts).
 */
export function resolveRetentionConfig(partial: Partial<RetentionConfig> = {}): RetentionConfig {
  return withDefaults(defaultRetentionConfig, partial);
}
