/** Validates responses against the schemas of the reference OpenAPI document shipped in docs/. */
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
