import type { DbFlag, DbInt } from '../schema.js';

/** One row per rate-limit bucket: its current window and the units used in it. */
export interface RateLimitsTable {
  bucket: string;
  window_start: DbInt;
  used: DbInt;
  admitted: DbFlag;
}

/** Tables of the rate-limit area. */
export interface RateLimitTables {
  rate_limits: RateLimitsTable;
}
