import type { DbInt } from '../schema.js';

/** The version of the cached account configuration (migration 0022): one row, id 1. */
export interface CacheVersionTable {
  id: number;
  version: DbInt;
}

/** The table of the cache version. */
export interface CacheVersionTables {
  cache_version: CacheVersionTable;
}
