/**
 * The JSON Schemas of the OpenAPI document, from the routes' zod schemas by zod 4's
 * `z.toJSONSchema` (the 2020-12 dialect OpenAPI 3.1 uses): request schemas on the input side (what
 * a client sends, before defaults and transforms), response schemas on the output side (what the
 * wire functions answer; objects list every field and allow no other). The resource shapes are
 * named in `components.schemas` so that generated clients get named types.
 */
import { shapingRulesWireSchema, shapingStateWireSchema } from '../shaping/views.js';
import { z } from 'zod';
import { subAccountWireSchema } from '../account/sub-account-wire.js';
import { alertWireSchema } from '../alerts/alert-wire.js';
import { incidentWireSchema } from '../alerts/incident-wire.js';
import { protectionWireSchema } from '../alerts/protection-api.js';
import { eventPageWireSchema, messagePageWireSchema } from '../activity/list.js';
import { messageItemViewSchema } from '../activity/rendered-subject.js';
import { messageViewSchema } from '../activity/message-view.js';
import { domainWireSchema } from '../domain/domain-wire.js';
import {
  ipAllocationWireSchema,
  ipWireSchema,
  poolWireSchema,
  tpspWireSchema,
  warmupPlanWireSchema,
} from '../ip/wire.js';
import { deletedSchema, messageOnlySchema } from '../model/wire-schemas.js';
import { cancelResultWireSchema } from '../scheduling/cancel.js';
import { eventWireSchema, sendResponseWireSchema } from '../sending/message-wire.js';
import { dailyStatWireSchema, statCountersWireSchema } from '../stats/queries.js';
import { importReportWireSchema, suppressionWireSchema } from '../suppression/suppression-wire.js';
import {
  templateSummaryWireSchema,
  templateVersionSummaryWireSchema,
  templateVersionWireSchema,
  templateWireSchema,
} from '../template/template-wire.js';
import { queuedReplayWireSchema } from '../webhook/replay.js';
import { webhookUpdateWireSchema, webhookWireSchema, webhookWithSecretWireSchema } from '../webhook/webhook-wire.js';
import { routeWireSchema, routeWithSecretWireSchema } from '../inbound/route-wire.js';
import { inboundMessageItemWireSchema } from '../inbound/message-wire.js';
import type { AnyRoute } from './route.js';

/** A JSON Schema object as the document holds it. */
export type JsonSchema = Record<string, unknown>;

/** The media types of a streamed export, by its `format` (docs/activity.md). */
const EXPORT_MEDIA_TYPES = { ndjson: 'application/x-ndjson', csv: 'text/csv' } as const;

/** The wire shapes named in `components.schemas` (the reference's names where it has the shape). */
const NAMED_SCHEMAS: ReadonlyArray<[string, z.ZodType]> = [
  ['SubAccount', subAccountWireSchema],
  ['Domain', domainWireSchema],
  ['Suppression', suppressionWireSchema],
  ['SuppressionImportReport', importReportWireSchema],
  ['IP', ipWireSchema],
  ['IPAllocation', ipAllocationWireSchema],
  ['AutoWarmupPlan', warmupPlanWireSchema],
  ['ThirdPartySendingProvider', tpspWireSchema],
  ['IPPool', poolWireSchema],
  ['Webhook', webhookWireSchema],
  ['WebhookWithSecret', webhookWithSecretWireSchema],
  ['WebhookUpdate', webhookUpdateWireSchema],
  ['EmailResponses', sendResponseWireSchema],
  ['Message', messageViewSchema],
  ['MessageItem', messageItemViewSchema],
  ['Event', eventWireSchema],
  ['MessagePage', messagePageWireSchema],
  ['EventPage', eventPageWireSchema],
  ['Stat', dailyStatWireSchema],
  ['AggregateStat', statCountersWireSchema],
  ['DeleteResponse', deletedSchema],
  ['MessageResponse', messageOnlySchema],
  ['Template', templateWireSchema],
  ['TemplateSummary', templateSummaryWireSchema],
  ['TemplateVersion', templateVersionWireSchema],
  ['TemplateVersionSummary', templateVersionSummaryWireSchema],
  ['CancelResponse', cancelResultWireSchema],
  ['WebhookReplay', queuedReplayWireSchema],
  ['DetailedAlert', alertWireSchema],
  ['Incident', incidentWireSchema],
  ['Protection', protectionWireSchema],
  ['ShapingRules', shapingRulesWireSchema],
  ['ShapingState', shapingStateWireSchema],
  ['InboundRoute', routeWireSchema],
  ['InboundRouteWithSecret', routeWithSecretWireSchema],
  ['InboundMessage', inboundMessageItemWireSchema],
];

/** Where a component is referred to from anywhere in the document. */
const componentRef = (id: string) => `#/components/schemas/${id}`;

/**
 * A bigint is an epoch-nanosecond time, written on the wire as an exact JSON integer: `int64`. The
 * safe-integer bounds zod puts on every `z.int()` say nothing a client needs, so they are left out.
 */
const override = ({ zodSchema, jsonSchema }: { zodSchema: z.core.$ZodTypes; jsonSchema: JsonSchema }) => {
  if (zodSchema._zod.def.type === 'bigint') Object.assign(jsonSchema, { type: 'integer', format: 'int64' });
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
};

/** `schema` without the keys a schema embedded in the document must not carry. */
function embedded(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

/**
 * JSON Schema of a request's zod schema, as a client sends it. Custom checks (z.custom, refinements)
 * have no JSON Schema form: they are left unconstrained.
 */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return embedded(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', override }) as JsonSchema);
}

/** The response schemas of `routes`: the named components, and each route's success schema (by reference or inline). */
export interface ResponseSchemas {
  components: Record<string, JsonSchema>;
  /** The success content of `route` (see {@link ResponseSchemas}). */
  contentOf(route: AnyRoute): JsonSchema;
}

/**
 * Converts every route's response schema at once, so a named shape used by several routes (or
 * inside another shape, as `IP` inside `IPPool`) is one component that the others refer to.
 */
export function responseSchemas(routes: readonly AnyRoute[]): ResponseSchemas {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of NAMED_SCHEMAS) registry.add(schema, { id });
  const inline = new Map<AnyRoute, string>();
  routes.forEach((route, index) => {
    if (!route.response || registry.has(route.response)) return;
    // A route's own shape (a list of a named one, usually) is converted here and inlined in its operation.
    const id = `route${index}`;
    registry.add(route.response, { id });
    inline.set(route, id);
  });
  const { schemas } = z.toJSONSchema(registry, {
    io: 'output',
    unrepresentable: 'any',
    override,
    uri: componentRef,
  }) as { schemas: Record<string, JsonSchema> };
  const components = Object.fromEntries(NAMED_SCHEMAS.map(([id]) => [id, embedded(schemas[id]!)]));
  const schemaOf = (route: AnyRoute): JsonSchema => {
    if (!route.response) return {};
    const own = inline.get(route);
    return own === undefined ? { $ref: componentRef(registry.get(route.response)!.id) } : embedded(schemas[own]!);
  };
  return {
    components,
    contentOf(route) {
      const schema = schemaOf(route);
      if (route.mediaType) return { [route.mediaType]: { schema: { type: 'string', format: 'binary' } } };
      if (!route.export) return { 'application/json': { schema } };
      const csv = { schema: { type: 'string', description: 'A header line, then one line per row.' } };
      if (route.export === 'csv') return { [EXPORT_MEDIA_TYPES.csv]: csv };
      return {
        // NDJSON is a sequence of JSON texts: its schema is that of each line (what OpenAPI 3.2 calls
        // `itemSchema`; 3.1 has no word for it). The CSV export has a header line and one line per row.
        [EXPORT_MEDIA_TYPES.ndjson]: {
          schema: { ...schema, description: 'Each line of the NDJSON export is one such object.' },
        },
        [EXPORT_MEDIA_TYPES.csv]: csv,
      };
    },
  };
}
