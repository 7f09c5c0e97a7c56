/**
 * Validates responses against the schemas of the reference OpenAPI document shipped in docs/ (an
 * OpenAPI 3.0 document: Ajv reads its `nullable: true` as "or null"), and against mailplane's own
 * served document (OpenAPI 3.1, JSON Schema 2020-12).
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';

const document = parse(readFileSync(new URL('../../docs/reference/sendpost-openapi.yaml', import.meta.url), 'utf8'));
// OpenAPI 3.0 `nullable` without `type` (Webhook.created_by/updated_by) constrains nothing, but Ajv
// refuses to compile it; drop it so those schemas can be used.
const dropUntypedNullable = (node: unknown): void => {
  if (node === null || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  if (schema.nullable === true && schema.type === undefined) delete schema.nullable;
  Object.values(schema).forEach(dropUntypedNullable);
};
dropUntypedNullable(document);
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(document, 'openapi.json');

/** Errors of `value` against `components.schemas[name]`, or `[]` when it conforms. */
export function schemaErrors(name: string, value: unknown): string[] {
  const validate = ajv.getSchema(`openapi.json#/components/schemas/${name}`);
  if (!validate) throw new Error(`no schema ${name} in the reference document`);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

/** A parsed OpenAPI document or schema. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- walks arbitrary documents
export type Json = Record<string, any>;

const METHODS = ['get', 'post', 'put', 'delete', 'patch'];

/** `/account/ip/`, `/account/ip` and `:id` / `{id}` are one path to the router. */
const normalizePath = (path: string) => path.replace(/\/$/, '').replace(/\{[^}]+\}|:\w+/g, '{}');

/** A JSON pointer (as a URI fragment) to `segments` of a document. */
const pointer = (segments: string[]) =>
  segments.map((s) => `/${encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('');

/** An operation of the vendor document. */
export interface VendorOperation {
  /** `METHOD /path` without the trailing slash, e.g. `GET /account/ip`. */
  name: string;
  method: string;
  path: string;
  /** Whether this operation is the route `method` `routePath` (`:name` parameters). */
  matches(method: string, routePath: string): boolean;
}

/** Every operation of the vendor document. */
export function vendorOperations(): VendorOperation[] {
  return Object.entries<Json>(document.paths).flatMap(([path, operations]) =>
    METHODS.filter((m) => operations[m]).map((m) => ({
      name: `${m.toUpperCase()} ${path.replace(/\/$/, '')}`,
      method: m,
      path,
      matches: (method: string, routePath: string) =>
        method.toLowerCase() === m && normalizePath(routePath) === normalizePath(path),
    })),
  );
}

/**
 * Errors of a success answer `body` against the vendor document's schema of `operation` and
 * `status` (a status the vendor does not list is one error).
 */
export function vendorResponseErrors(operation: VendorOperation, status: number, body: unknown): string[] {
  const response = document.paths[operation.path][operation.method].responses[String(status)];
  if (!response?.content?.['application/json']?.schema)
    return [`status ${status} has no JSON schema in the vendor document`];
  const ref = `openapi.json#${pointer(['paths', operation.path, operation.method, 'responses', String(status), 'content', 'application/json', 'schema'])}`;
  const validate = ajv.getSchema(ref);
  if (!validate) throw new Error(`cannot compile ${ref}`);
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

/**
 * The success answer of route `method` `routePath` with `status` in mailplane's own served
 * document `ours`, with a validator per media type; `undefined` when the document lacks it.
 */
export function operationSchemas(ours: Json, method: string, routePath: string, status: number) {
  const path = Object.keys(ours.paths).find((p) => normalizePath(p) === normalizePath(routePath));
  const content: Json | undefined =
    path && ours.paths[path][method.toLowerCase()]?.responses?.[String(status)]?.content;
  if (!content) return undefined;
  const validators = new Map<string, ReturnType<Ajv2020['compile']>>();
  const own = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  own.addSchema(ours, 'mailplane.json');
  return {
    /** The media types the document lists for this answer. */
    media: Object.keys(content),
    /** Errors of `value` against the schema of `media`. */
    validate(media: string, value: unknown): string[] {
      if (!content[media]) return [`no ${media} answer in the document`];
      let validate = validators.get(media);
      if (!validate) {
        validate = own.getSchema(
          `mailplane.json#${pointer(['paths', path!, method.toLowerCase(), 'responses', String(status), 'content', media, 'schema'])}`,
        )!;
        validators.set(media, validate);
      }
      return validate(value)
        ? []
        : (validate.errors ?? []).map(
            (e) =>
              `${e.instancePath || '/'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
          );
    },
  };
}
