import { z } from 'zod';
import { epochNsSchema } from '../model/wire-schemas.js';
import type { IncidentRecord } from '../store/index.js';
import { alertProviderToWire } from './codes.js';

/** `status` of the legacy `models.Incident` (an `IncidentStatus` integer): 0 open, 1 resolved. */
export const IncidentStatus = { Open: 0, Resolved: 1 } as const;

/** One timeline entry on the wire. */
export const incidentActionWireSchema = z.object({
  at: epochNsSchema,
  action: z.string(),
  actor: z.enum(['mailplane', 'operator']),
  detail: z.string(),
});

/** The wire shape of {@link incidentToWire}. */
export const incidentWireSchema = z.object({
  id: z.int(),
  status: z.int(),
  state: z.enum(['open', 'resolved']),
  summary: z.string(),
  topic: z.string().meta({
    description:
      'What the incident is about (one open per topic): `alert:<rule id>`, `block:<sub-account id>`, `warn:<sub-account id>:<parameter>` or `pause:<shaping key>`.',
  }),
  created: epochNsSchema,
  updated: epochNsSchema,
  closed: epochNsSchema.nullable(),
  resolvedBy: z.enum(['mailplane', 'operator', 'alert-deleted']).nullable(),
  alertId: z.int().nullable(),
  entityType: z.string(),
  entityValue: z.string(),
  parameter: z.int(),
  provider: z.string(),
  threshold: z.string(),
  windowHours: z.int(),
  measuredValue: z.number(),
  sampleSize: z.int(),
  timeline: z.array(incidentActionWireSchema),
});

/**
 * The legacy document's `models.Incident` where it applies (`id`, `status`, `summary`, `created`
 * as the start, `updated`, `closed` as the resolution time, `null` while open), and what an
 * incident of mailplane is: the rule (`alertId`, `null` for an automatic protection or once the
 * rule is deleted), the entity, what was measured against which line over which window, on how
 * much mail, who resolved it and its timeline. Members, tags and comments are not modelled.
 */
export function incidentToWire(record: IncidentRecord): z.output<typeof incidentWireSchema> {
  return {
    id: record.id,
    status: record.state === 'open' ? IncidentStatus.Open : IncidentStatus.Resolved,
    state: record.state,
    summary: record.summary,
    topic: record.topic,
    created: record.started,
    updated: record.updated,
    closed: record.resolvedAt,
    resolvedBy: record.resolvedBy,
    alertId: record.alertId,
    entityType: record.entityType,
    entityValue: String(record.entityId),
    parameter: record.parameter,
    provider: alertProviderToWire(record.provider),
    threshold: String(record.threshold),
    windowHours: record.windowHours,
    measuredValue: record.measuredValue,
    sampleSize: record.sampleSize,
    timeline: record.timeline.map((action) => ({ ...action })),
  };
}
