/**
 * The JSON Schemas of the OpenAPI document, from the routes' zod schemas by zod 4's
 * `z.toJSONSchema` (the 2020-12 dialect OpenAPI 3.1 uses): request schemas on the input side (what
 * a client sends, before defaults and transforms), response schemas on the output side (what the
 * wire functions answer; objects list every field and allow no other).
 */
import { z } from 'zod';
import type { AnyRoute } from './route.js';

/** A JSON Schema object as the document holds it. */
export type JsonSchema = Record<string, unknown>;

/** The media types of a streamed export, by its `format` (docs/activity.md). */
const EXPORT_MEDIA_TYPES = { ndjson: 'application/x-ndjson', csv: 'text/csv' } as const;

/**
 * JSON Schema of `schema` as a request sends it (`input`) or as a response carries it (`output`).
 * Custom checks (z.custom, refinements) have no JSON Schema form: they are left unconstrained. A
 * bigint is an epoch-nanosecond time, written on the wire as an exact JSON integer: `int64`.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema._zod.def.type === 'bigint') Object.assign(jsonSchema, { type: 'integer', format: 'int64' });
    },
  }) as JsonSchema;
  return rest;
}

/** The `content` of a route's success answer: its JSON body, or for an export each of its formats. */
export function successContent(route: AnyRoute): JsonSchema {
  const schema = route.response ? jsonSchemaOf(route.response, 'output') : {};
  if (!route.export) return { 'application/json': { schema } };
  return {
    // NDJSON is a sequence of JSON texts: its schema is that of each line (what OpenAPI 3.2 calls
    // `itemSchema`; 3.1 has no word for it). The CSV export has a header line and one line per row.
    [EXPORT_MEDIA_TYPES.ndjson]: { schema: { ...schema, description: 'Each line of the NDJSON export is one such object.' } },
    [EXPORT_MEDIA_TYPES.csv]: { schema: { type: 'string', description: 'A header line, then one line per row.' } },
  };
}
