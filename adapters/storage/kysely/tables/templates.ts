import type { DbId, DbInt } from '../schema.js';

/** One stored template of a sub-account (migration 0017). */
export interface TemplatesTable {
  id: DbId;
  sub_account_id: DbInt;
  name: string;
  /** `name` lower-cased by the application: the case-insensitive uniqueness, lookup and search key. */
  name_key: string;
  active_version: DbInt;
  latest_version: DbInt;
  created: DbInt;
  updated: DbInt;
}

/** One kept version of a template; a part the version lacks is NULL. */
export interface TemplateVersionsTable {
  template_id: DbInt;
  version: DbInt;
  subject: string;
  html_body: string | null;
  text_body: string | null;
  amp_body: string | null;
  created: DbInt;
}

/** Tables of the template area. */
export interface TemplateTables {
  templates: TemplatesTable;
  template_versions: TemplateVersionsTable;
}
