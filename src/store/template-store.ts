import type { ListQuery } from '../model/paging.js';
import type { EpochNs } from '../model/time.js';
import type { Outcome } from './outcome.js';

/** The parts of a stored template: what a send with it renders (Handlebars sources). */
export interface TemplateContent {
  subject: string;
  htmlBody?: string;
  textBody?: string;
  ampBody?: string;
}

/** One kept version of a template: its parts as saved, numbered from 1 in the order saved. */
export interface TemplateVersionRecord extends TemplateContent {
  templateId: number;
  version: number;
  created: EpochNs;
}

/** A kept version as a list shows it: without its bodies. */
export interface TemplateVersionSummary {
  version: number;
  subject: string;
  created: EpochNs;
}

/** A template as a list shows it: its name, versions and the active version's subject, no bodies. */
export interface TemplateSummary {
  id: number;
  subAccountId: number;
  /** The name as given; unique in the sub-account case-insensitively. */
  name: string;
  /** The version a send uses. */
  activeVersion: number;
  /** The newest version saved (versions are numbered 1, 2, … and never reused). */
  latestVersion: number;
  /** The active version's subject. */
  subject: string;
  created: EpochNs;
  updated: EpochNs;
}

/** A template with its active version's parts. */
export interface TemplateRecord extends TemplateSummary {
  active: TemplateVersionRecord;
}

/** What {@link TemplateStore.create} needs: the content becomes version 1, active. */
export interface NewTemplate {
  subAccountId: number;
  name: string;
  content: TemplateContent;
  created: EpochNs;
}

/** What {@link TemplateStore.update} changes; omitted fields stay. */
export interface TemplateUpdate {
  name?: string;
  /** A new version (the latest plus one), made active; versions older than the newest `keepVersions` go. */
  content?: TemplateContent;
  keepVersions: number;
  updated: EpochNs;
}

/**
 * Storage of a sub-account's stored templates and their versions. Every read and write is scoped by
 * `subAccountId`: a template of another sub-account is indistinguishable from a missing one.
 *
 * - Names are unique per sub-account case-insensitively: `create` and a renaming `update` MUST
 *   answer `duplicate-name` when another template of the sub-account has the name, also under
 *   concurrent calls; another sub-account MAY hold the same name. `findByName` matches
 *   case-insensitively.
 * - `list` MUST order by id ascending and match `search` as a literal, case-insensitive substring
 *   of the name (`%`, `_` and `\` match themselves).
 * - `update` with `content` MUST be atomic: the new version is the latest plus one (concurrent
 *   updates get distinct numbers), it becomes active, and versions numbered at or below
 *   `latest - keepVersions` are deleted in the same step.
 * - `activate` MUST answer `no-such-version` for a version that was never saved or is no longer kept.
 * - Deleting a template deletes its versions; deleting its sub-account deletes both.
 */
export interface TemplateStore {
  create(input: NewTemplate): Promise<Outcome<TemplateRecord, 'duplicate-name'>>;
  get(subAccountId: number, id: number): Promise<TemplateRecord | null>;
  /** The sub-account's template of this name, compared case-insensitively, or `null`. */
  findByName(subAccountId: number, name: string): Promise<TemplateRecord | null>;
  list(subAccountId: number, query: ListQuery): Promise<TemplateSummary[]>;
  update(
    subAccountId: number,
    id: number,
    update: TemplateUpdate,
  ): Promise<Outcome<TemplateRecord, 'not-found' | 'duplicate-name'>>;
  /** The kept versions, oldest first; `null` when the template is missing. */
  listVersions(subAccountId: number, id: number): Promise<TemplateVersionSummary[] | null>;
  getVersion(subAccountId: number, id: number, version: number): Promise<TemplateVersionRecord | null>;
  activate(
    subAccountId: number,
    id: number,
    version: number,
    updated: EpochNs,
  ): Promise<Outcome<TemplateRecord, 'not-found' | 'no-such-version'>>;
  /** True when the template existed in that sub-account and is now gone, with its versions. */
  delete(subAccountId: number, id: number): Promise<boolean>;
}
