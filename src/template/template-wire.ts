/**
 * The wire shapes of stored templates (docs/templates.md): each answer's zod schema next to the
 * function that builds it, so the OpenAPI document publishes what the routes answer.
 */
import { z } from 'zod';
import { epochNsSchema } from '../model/wire-schemas.js';
import type { TemplateRecord, TemplateSummary, TemplateVersionRecord, TemplateVersionSummary } from '../store/index.js';

const parts = (content: { htmlBody?: string; textBody?: string; ampBody?: string }) => ({
  ...(content.htmlBody !== undefined && { htmlBody: content.htmlBody }),
  ...(content.textBody !== undefined && { textBody: content.textBody }),
  ...(content.ampBody !== undefined && { ampBody: content.ampBody }),
});

// A version holds at least one of the three bodies; each appears only when saved.
const partFields = { htmlBody: z.string().optional(), textBody: z.string().optional(), ampBody: z.string().optional() };

/** The wire shape of {@link templateSummaryToWire}. */
export const templateSummaryWireSchema = z.object({
  id: z.int(),
  name: z.string(),
  subject: z.string(),
  activeVersion: z.int(),
  latestVersion: z.int(),
  created: epochNsSchema,
  updated: epochNsSchema,
});

/** The wire shape of {@link templateToWire}: the summary plus the active version's bodies. */
export const templateWireSchema = templateSummaryWireSchema.extend(partFields);

/** The wire shape of {@link versionSummaryToWire}. */
export const templateVersionSummaryWireSchema = z.object({
  version: z.int(),
  active: z.boolean(),
  subject: z.string(),
  created: epochNsSchema,
});

/** The wire shape of {@link versionToWire}. */
export const templateVersionWireSchema = z.object({
  templateId: z.int(),
  version: z.int(),
  active: z.boolean(),
  subject: z.string(),
  ...partFields,
  created: epochNsSchema,
});

/** A template as a list answers it: no bodies (each may be half a megabyte). */
export function templateSummaryToWire(template: TemplateSummary): z.output<typeof templateSummaryWireSchema> {
  return {
    id: template.id,
    name: template.name,
    subject: template.subject,
    activeVersion: template.activeVersion,
    latestVersion: template.latestVersion,
    created: template.created,
    updated: template.updated,
  };
}

/** A template with its active version's parts, as create, get, update and activate answer it. */
export function templateToWire(template: TemplateRecord): z.output<typeof templateWireSchema> {
  const { subject, ...summary } = templateSummaryToWire(template);
  return {
    id: summary.id,
    name: summary.name,
    subject,
    ...parts(template.active),
    activeVersion: summary.activeVersion,
    latestVersion: summary.latestVersion,
    created: summary.created,
    updated: summary.updated,
  };
}

/** A kept version as the version list answers it: no bodies. */
export function versionSummaryToWire(
  version: TemplateVersionSummary,
  activeVersion: number,
): z.output<typeof templateVersionSummaryWireSchema> {
  return {
    version: version.version,
    active: version.version === activeVersion,
    subject: version.subject,
    created: version.created,
  };
}

/** One kept version with its parts. */
export function versionToWire(
  version: TemplateVersionRecord,
  activeVersion: number,
): z.output<typeof templateVersionWireSchema> {
  return {
    templateId: version.templateId,
    version: version.version,
    active: version.version === activeVersion,
    subject: version.subject,
    ...parts(version),
    created: version.created,
  };
}
