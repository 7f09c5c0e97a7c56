/** Instance-wide settings (migration 0013). */
export interface SettingsTable {
  name: string;
  value: string;
}

/** The tables of instance-wide settings. */
export interface SettingTables {
  settings: SettingsTable;
}
