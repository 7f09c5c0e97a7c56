import type { DbInt } from '../schema.js';

/** Dashboard sessions (migration 0023); times in epoch milliseconds. */
export interface DashboardSessionsTable {
  id_hash: string;
  kind: string;
  sealed_key: string;
  created_at: DbInt;
  expires_at: DbInt;
}

/** The tables of dashboard sessions. */
export interface DashboardSessionTables {
  dashboard_sessions: DashboardSessionsTable;
}
