/**
 * The OpenAPI 3.1 document served at `GET /api/v1/openapi.json`: it needs no key, describes every
 * route of the route table, carries every operation of the reference document
 * (docs/reference/sendpost-openapi.yaml) with compatible request schemas and success status, publishes
 * the response schema of every route (test/integration/openapi-responses.test.ts checks real answers
 * against it), and is
 * a structurally valid OpenAPI 3.1 document whose schemas all compile as JSON Schema 2020-12.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { apiRoutes } from '../../src/http/routes/index.js';
import { useTestApi } from '../support/api.js';
import { storeKinds } from '../support/databases.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walks arbitrary documents

const reference: Json = parse(
  readFileSync(new URL('../../docs/reference/sendpost-openapi.yaml', import.meta.url), 'utf8'),
);
const METHODS = ['get', 'post', 'put', 'delete', 'patch'];

/**
 * Reference operations mailplane does not serve, each with the reason (docs/openapi.md lists them).
 * The test fails if one of them appears, so this list shrinks when they are built.
 */
const NOT_SERVED: Record<string, string> = {};

/** `/account/ip/` and `/account/ip` are one path to the router; parameter names are free. */
const normalize = (path: string) => path.replace(/\/$/, '').replace(/\{[^}]+\}/g, '{}');

/** `schema` with its `$ref` followed in `document`. */
function resolve(document: Json, schema: Json | undefined): Json | undefined {
  if (!schema?.$ref) return schema;
  return resolve(
    document,
    (schema.$ref as string)
      .replace(/^#\//, '')
      .split('/')
      .reduce((node: Json, key) => node[key], document),
  );
}

/** `schema` resolved, its `allOf` members (the reference's `EmailMessageWithTemplate`) merged into one object schema. */
function flatten(document: Json, schema: Json | undefined): Json | undefined {
  const resolved = resolve(document, schema);
  if (!Array.isArray(resolved?.allOf)) return resolved;
  const members = (resolved.allOf as Json[]).map((member) => flatten(document, member) ?? {});
  return {
    type: 'object',
    properties: Object.assign({}, ...members.map((member) => member.properties ?? {})),
    required: members.flatMap((member) => member.required ?? []),
  };
}

/** The JSON types a schema admits (`undefined`: any). */
function typesOf(schema: Json | undefined): Set<string> | undefined {
  if (!schema) return undefined;
  if (typeof schema.type === 'string')
    return new Set(schema.type === 'integer' ? ['integer', 'number'] : [schema.type]);
  if (Array.isArray(schema.type))
    return new Set(schema.type.flatMap((t: string) => (t === 'integer' ? ['integer', 'number'] : [t])));
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches)) {
    const all = branches.map(typesOf);
    return all.some((t) => t === undefined) ? undefined : new Set(all.flatMap((t) => [...t!]));
  }
  return undefined;
}

/**
 * Where a client generated from the reference could not talk to `ours`: a field the reference
 * requires that we do not take, a field we require that the reference does not define (a generated
 * client could not send it), or a property whose types do not meet. The reference marks almost no
 * field required (not even a send's `from`); mailplane requires what it cannot work without, which
 * such a client can still send.
 */
function incompatibilities(theirs: Json, ours: Json, where: string): string[] {
  const problems: string[] = [];
  const theirRequired = new Set<string>(theirs.required ?? []);
  for (const field of ours.required ?? [])
    if (!theirs.properties?.[field]) problems.push(`${where}: requires ${field}, the reference has no such field`);
  for (const [name, property] of Object.entries<Json>(theirs.properties ?? {})) {
    const mine = ours.properties?.[name];
    if (!mine) {
      if (ours.additionalProperties === false || theirRequired.has(name))
        problems.push(`${where}: no property ${name}`);
      continue;
    }
    const theirTypes = typesOf(resolve(reference, property));
    const myTypes = typesOf(mine);
    if (theirTypes && myTypes && ![...theirTypes].some((t) => myTypes.has(t)))
      problems.push(`${where}.${name}: ${[...theirTypes]} vs ${[...myTypes]}`);
  }
  return problems;
}

/** `schema` with its `#/components/...` references pointed at the document added to Ajv as `doc`. */
const inDocument = (schema: Json): Json =>
  JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"doc#/components/'));

describe.each(storeKinds)('the OpenAPI document (%s)', (kind) => {
  const api = useTestApi(kind);

  it('is served without a key and describes every route of the route table', async () => {
    const response = await api.call('GET', '/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toContain('application/json');
    const document: Json = response.body;
    expect(document.openapi).toBe('3.1.0');
    for (const route of apiRoutes) {
      const operation = document.paths[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      for (const status of ['401', '403', '429', '503'])
        expect(operation.responses[status].content['application/json'].schema).toEqual({
          $ref: '#/components/schemas/Error',
        });
      if (route.body) for (const status of ['413', '422']) expect(operation.responses[status]).toBeDefined();
      if (route.path.includes(':')) expect(operation.responses['406']).toBeDefined();
      // Every route declares the schema of its success answer, and the document publishes it.
      expect(route.response, `${route.method} ${route.path} declares no response schema`).toBeDefined();
      const success = Object.entries<Json>(operation.responses).find(([status]) => status.startsWith('2'))![1];
      for (const media of Object.values<Json>(success.content))
        expect(Object.keys(media.schema).length, `${route.method} ${route.path}`).toBeGreaterThan(0);
    }
    // A ns time is an exact JSON integer, not an unconstrained value.
    // Resource shapes are named components (the reference's names), which lists and other shapes refer to.
    expect(document.paths['/account/subaccount'].get.responses['200'].content['application/json'].schema).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/SubAccount' },
    });
    expect(document.components.schemas.SubAccount.properties.created).toMatchObject({
      type: 'integer',
      format: 'int64',
    });
    expect(document.components.schemas.IPPool.properties.ips).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/IP' },
    });
    expect(document.paths['/account/sandbox/message/{sandbox_message_id}'].get.security).toEqual([{ accountAuth: [] }]);
  });
});

describe('the OpenAPI document against the reference', () => {
  const api = useTestApi('sqlite');

  const served = async (): Promise<Json> => (await api.call('GET', '/openapi.json')).body;

  it('has every reference operation, with compatible request schemas and the same success status', async () => {
    const document = await served();
    const ours = new Map<string, Json>();
    for (const [path, operations] of Object.entries<Json>(document.paths)) {
      for (const method of METHODS)
        if (operations[method]) ours.set(`${method.toUpperCase()} ${normalize(path)}`, operations[method]);
    }
    const problems: string[] = [];
    let compared = 0;
    for (const [path, operations] of Object.entries<Json>(reference.paths)) {
      for (const method of METHODS.filter((m) => operations[m])) {
        const name = `${method.toUpperCase()} ${path.replace(/\/$/, '')}`;
        const theirs: Json = operations[method];
        const mine = ours.get(`${method.toUpperCase()} ${normalize(path)}`);
        if (name in NOT_SERVED) {
          expect(mine, `${name} is served now: take it off NOT_SERVED`).toBeUndefined();
          continue;
        }
        if (!mine) {
          problems.push(`${name}: missing`);
          continue;
        }
        compared++;
        const theirBody = flatten(reference, theirs.requestBody?.content?.['application/json']?.schema);
        const myBody = mine.requestBody?.content?.['application/json']?.schema;
        if (theirBody && !myBody) problems.push(`${name}: takes no body`);
        if (theirBody && myBody) problems.push(...incompatibilities(theirBody, myBody, `${name} body`));
        const myQuery = new Set((mine.parameters ?? []).filter((p: Json) => p.in === 'query').map((p: Json) => p.name));
        for (const parameter of (theirs.parameters ?? []).map((p: Json) => resolve(reference, p)!)) {
          if (parameter.in === 'query' && parameter.required && !myQuery.has(parameter.name))
            problems.push(`${name}: no query parameter ${parameter.name}`);
        }
        const theirSuccess = Object.keys(theirs.responses).filter((s) => s.startsWith('2'));
        for (const status of theirSuccess) if (!mine.responses[status]) problems.push(`${name}: no ${status} response`);
      }
    }
    expect(problems).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(30);
  });

  it('declares the headers a route reads and answers, and real answers carry them', async () => {
    const document = await served();
    // Every answer's header is a component with a description and a schema.
    for (const [path, operations] of Object.entries<Json>(document.paths)) {
      for (const [method, op] of Object.entries<Json>(operations)) {
        for (const [status, response] of Object.entries<Json>(op.responses)) {
          for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
            expect(resolve(document, header), `${method} ${path} ${status} ${name}`).toMatchObject({
              description: expect.any(String),
              schema: expect.any(Object),
            });
          }
        }
      }
    }
    // The send routes take an Idempotency-Key and may answer Idempotent-Replayed.
    for (const path of ['/subaccount/email', '/subaccount/email/template']) {
      const send = document.paths[path].post;
      expect(send.parameters, path).toContainEqual(
        expect.objectContaining({
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        }),
      );
      expect(Object.keys(send.responses['200'].headers), path).toContain('Idempotent-Replayed');
    }
    expect(Object.keys(document.paths['/subaccount/suppression'].get.responses['200'].headers)).not.toContain(
      'Idempotent-Replayed',
    );

    // What the document says a success answer carries, a real one does.
    const listed = (path: string, method: string) =>
      Object.keys(document.paths[path][method].responses['200'].headers).map((name) => name.toLowerCase());
    const sub = await api.call('POST', '/account/subaccount', { account: api.accountKey, body: { name: 'headers' } });
    const subAccounts = await api.call('GET', '/account/subaccount', { account: api.accountKey });
    for (const name of listed('/account/subaccount', 'get')) expect(subAccounts.headers, name).toHaveProperty(name);
    const request = {
      sub: sub.body.apiKey,
      headers: { 'idempotency-key': 'order-42' },
      body: { from: { email: 'a@nowhere.test' }, to: [{ email: 'b@example.org' }], subject: 'Hi', textBody: 'Hi' },
    };
    const first = await api.call('POST', '/subaccount/email', request);
    const again = await api.call('POST', '/subaccount/email', request);
    expect(first.headers).not.toHaveProperty('idempotent-replayed');
    for (const name of listed('/subaccount/email', 'post')) expect(again.headers, name).toHaveProperty(name);
    expect(again.headers['idempotent-replayed']).toBe('true');
    // The declared maxLength is the one enforced.
    const tooLong = await api.call('POST', '/subaccount/email', {
      ...request,
      headers: { 'idempotency-key': 'k'.repeat(256) },
    });
    expect(tooLong.status).toBe(422);
  });

  it('is a structurally valid OpenAPI 3.1 document whose schemas compile as JSON Schema 2020-12', async () => {
    const document = await served();
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const operation = {
      type: 'object',
      required: ['responses'],
      properties: {
        operationId: { type: 'string' },
        parameters: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'in', 'schema'],
            properties: { in: { enum: ['query', 'path', 'header', 'cookie'] }, required: { type: 'boolean' } },
          },
        },
        requestBody: { type: 'object', required: ['content'] },
        responses: {
          type: 'object',
          minProperties: 1,
          propertyNames: { pattern: '^[1-5][0-9]{2}$' },
          additionalProperties: { type: 'object', required: ['description'] },
        },
        security: { type: 'array' },
      },
    };
    const structure = ajv.compile({
      type: 'object',
      required: ['openapi', 'info', 'paths'],
      properties: {
        openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' },
        info: { type: 'object', required: ['title', 'version'] },
        servers: { type: 'array', items: { type: 'object', required: ['url'] } },
        paths: {
          type: 'object',
          propertyNames: { pattern: '^/' },
          additionalProperties: {
            type: 'object',
            propertyNames: { enum: [...METHODS, 'parameters'] },
            additionalProperties: operation,
          },
        },
        components: { type: 'object' },
      },
    });
    expect(structure(document), JSON.stringify(structure.errors)).toBe(true);
    // Every path parameter of a path is declared, and every operation's security names a scheme.
    const schemes = Object.keys(document.components.securitySchemes);
    const schemas: Json[] = [];
    for (const [path, operations] of Object.entries<Json>(document.paths)) {
      for (const op of Object.values<Json>(operations)) {
        const declared = (op.parameters ?? []).filter((p: Json) => p.in === 'path').map((p: Json) => p.name);
        expect(declared.sort(), path).toEqual([...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort());
        for (const requirement of op.security ?? [])
          for (const scheme of Object.keys(requirement)) expect(schemes).toContain(scheme);
        for (const parameter of op.parameters ?? []) schemas.push(parameter.schema);
        for (const media of Object.values<Json>(op.requestBody?.content ?? {})) schemas.push(media.schema);
        // Success and error answers (a `$ref` to a component is compiled against the document, see inDocument).
        for (const response of Object.values<Json>(op.responses))
          for (const media of Object.values<Json>(response.content ?? {})) schemas.push(media.schema);
      }
    }
    ajv.addSchema({ $id: 'doc', components: document.components });
    // Schemas refer to components by `#/components/...`: each is compiled inside a copy of the document.
    for (const name of Object.keys(document.components.schemas))
      expect(() => ajv.getSchema(`doc#/components/schemas/${name}`), name).not.toThrow();
    for (const schema of schemas) expect(() => ajv.compile(inDocument(schema))).not.toThrow();
    expect(
      ajv.validate({ $ref: 'doc#/components/schemas/Error' }, { code: 'INVALID_REQUEST', message: 'bad', details: [] }),
    ).toBe(true);
  });
});
