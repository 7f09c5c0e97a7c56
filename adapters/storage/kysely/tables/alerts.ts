import type { DbFlag, DbId, DbInt, DbIntNull } from '../schema.js';

/** A double precision column (a rate in percent, a measured value): a number in both drivers. */
type DbReal = number;

/** Migration 0029: one alert rule of an account. */
export interface AlertsTable {
  id: DbId;
  account_id: DbInt;
  name: string;
  /** `name` lower-cased by the application: the case-insensitive search key. */
  name_key: string;
  active: DbFlag;
  /** `AlertEntityType`. */
  entity_type: string;
  entity_id: DbInt;
  parameter: DbInt;
  threshold: DbReal;
  /** A mailbox provider id; NULL for all. */
  provider: DbIntNull;
  processed_count_threshold: DbInt;
  window_hours: DbInt;
  /** JSON array of addresses. */
  emails: string;
  slack_url: string | null;
  created: DbInt;
  updated: DbInt;
}

/** Migration 0029: one incident; `open_topic` is its topic while open, NULL once resolved. */
export interface IncidentsTable {
  id: DbId;
  account_id: DbInt;
  topic: string;
  open_topic: string | null;
  alert_id: DbIntNull;
  entity_type: string;
  entity_id: DbInt;
  parameter: DbInt;
  provider: DbIntNull;
  threshold: DbReal;
  window_hours: DbInt;
  measured_value: DbReal;
  sample_size: DbInt;
  summary: string;
  /** `IncidentState`. */
  state: string;
  started: DbInt;
  resolved_at: DbIntNull;
  /** `IncidentResolver`. */
  resolved_by: string | null;
  updated: DbInt;
  /** Migration 0031: when the evaluation first saw the rate back under the line; NULL while over it. */
  clear_since: DbIntNull;
}

/** Migration 0029: one action of an incident's timeline. */
export interface IncidentActionsTable {
  id: DbId;
  incident_id: DbInt;
  at: DbInt;
  action: string;
  actor: string;
  detail: string;
}

/** Migration 0031: the automatic protection's settings of an account (`sub_account_id` 0) or sub-account. */
export interface ProtectionSettingsTable {
  account_id: DbInt;
  sub_account_id: DbInt;
  /** JSON: `ProtectionSettings` for the account, `ProtectionOverrides` for a sub-account. */
  settings: string;
  updated: DbInt;
}

/** The tables of alert rules, incidents and the automatic protection's settings. */
export interface AlertTables {
  alerts: AlertsTable;
  incidents: IncidentsTable;
  incident_actions: IncidentActionsTable;
  protection_settings: ProtectionSettingsTable;
}
