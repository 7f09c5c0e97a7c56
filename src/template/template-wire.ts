import type { TemplateRecord, TemplateSummary, TemplateVersionRecord, TemplateVersionSummary } from '../store/index.js';

const parts = (content: { htmlBody?: string; textBody?: string; ampBody?: string }) => ({
  ...(content.htmlBody !== undefined && { htmlBody: content.htmlBody }),
  ...(content.textBody !== undefined && { textBody: content.textBody }),
  ...(content.ampBody !== undefined && { ampBody: content.ampBody }),
});

/** A template as a list answers it: no bodies (each may be half a megabyte). */
export function templateSummaryToWire(template: TemplateSummary) {
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
export function templateToWire(template: TemplateRecord) {
  const { subject, ...summary } = templateSummaryToWire(template);
  return { id: summary.id, name: summary.name, subject, ...parts(template.active), activeVersion: summary.activeVersion, latestVersion: summary.latestVersion, created: summary.created, updated: summary.updated };
}

/** A kept version as the version list answers it: no bodies. */
export function versionSummaryToWire(version: TemplateVersionSummary, activeVersion: number) {
  return { version: version.version, active: version.version === activeVersion, subject: version.subject, created: version.created };
}

/** One kept version with its parts. */
export function versionToWire(version: TemplateVersionRecord, activeVersion: number) {
  return { templateId: version.templateId, version: version.version, active: version.version === activeVersion, subject: version.subject, ...parts(version), created: version.created };
}
