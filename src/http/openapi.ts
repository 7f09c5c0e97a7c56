/**
 * The OpenAPI 3.1 document of the `/api/v1` surface, generated from the route table itself: each
 * route's method, path, key, zod query and body schemas and the zod schema of its success answer
 * (as JSON Schema by src/http/openapi-schemas.ts), so the document cannot drift from what the router
 * checks and answers. Every error status a route can answer carries the one error body of
 * src/http/errors.ts. Served by the router at `/openapi.json`.
 */
import { jsonSchemaOf, responseSchemas, type JsonSchema, type ResponseSchemas } from './openapi-schemas.js';
import type { AnyRoute } from './route.js';

/** The path the router serves the document at, under `/api/v1`; it needs no key. */
export const OPENAPI_PATH = '/openapi.json';

const ERROR_REF = { $ref: '#/components/schemas/Error' };

/** Why each error status is answered, as its response description. */
const ERROR_STATUSES: Readonly<Record<string, string>> = {
  '401': 'The API key is missing or unknown.',
  '403': 'Not allowed: a duplicate, a blocked key or a resource of another owner.',
  '406': 'No resource with this id.',
  '410': 'Gone: what was asked of the resource was removed for good.',
  '413': 'The request body is larger than the body limit.',
  '422': 'The query or body is malformed; `details` lists each problem.',
  '429': 'Rate limited; `Retry-After` says when to try again.',
  '503': 'A service mailplane depends on is unavailable; try again later.',
};

/** `/a/:id/b` as OpenAPI writes it: `/a/{id}/b`. */
function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]\w*)/g, '{$1}');
}

/** A stable operation id: `getAccountSubaccountBySubaccountId`. */
function operationId(route: AnyRoute): string {
  const words = route.path
    .split('/')
    .filter(Boolean)
    .map((part) => (part.startsWith(':') ? `by_${part.slice(1)}` : part));
  const camel = words.join('_').replace(/[_-]+(\w)/g, (_match, letter: string) => letter.toUpperCase());
  return `${route.method.toLowerCase()}${camel.charAt(0).toUpperCase()}${camel.slice(1)}`;
}

/** The query parameters of `route`, one per property of its query schema. */
function queryParameters(route: AnyRoute): JsonSchema[] {
  if (!route.query) return [];
  const schema = jsonSchemaOf(route.query);
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries((schema.properties as Record<string, JsonSchema> | undefined) ?? {}).map(
    ([name, property]) => ({
      name,
      in: 'query',
      required: required.has(name),
      schema: property,
    }),
  );
}

/** The headers of every answer, and those of the rate limiter (docs/security.md), as `components.headers`. */
const COMMON_HEADERS: Readonly<Record<string, { description: string; schema: JsonSchema }>> = {
  'X-Request-Id': {
    description:
      "The request's id: the one sent in `X-Request-Id` when it is 1-64 of `[A-Za-z0-9._-]`, else a new one; the access log names it.",
    schema: { type: 'string' },
  },
  'X-RateLimit-Limit': {
    description: "The key's allowance per minute for this kind of request (when rate limits are on).",
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': {
    description: 'What is left of the allowance in this minute.',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Reset': { description: 'When the minute ends, in UNIX epoch seconds.', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds until the request may be sent again.', schema: { type: 'integer' } },
};

const headerRefs = (names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

/** The error statuses `route` can answer, each with its description, headers and the error body. */
function errorResponses(route: AnyRoute): Record<string, unknown> {
  const statuses = ['401', '403', '429', '503'];
  if (route.path.includes(':')) statuses.push('406');
  if (route.body || route.streamedBody) statuses.push('413');
  if (route.body || route.query || route.streamedBody) statuses.push('422');
  for (const status of route.alsoAnswers ?? []) if (!statuses.includes(status)) statuses.push(status);
  statuses.sort();
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: ERROR_STATUSES[status],
        headers: headerRefs(
          status === '429'
            ? ['X-Request-Id', 'Retry-After', ...RATE_LIMIT_HEADERS]
            : status === '503'
              ? ['X-Request-Id', 'Retry-After']
              : ['X-Request-Id'],
        ),
        content: { 'application/json': { schema: ERROR_REF } },
      },
    ]),
  );
}

/** The request headers `route` declares, as header parameters. */
function headerParameters(route: AnyRoute): JsonSchema[] {
  return (route.headers ?? []).map((header) => ({
    name: header.name,
    in: 'header',
    required: false,
    description: header.description,
    schema: { type: 'string', minLength: 1, ...(header.maxLength !== undefined && { maxLength: header.maxLength }) },
  }));
}

/** The headers of `route`'s success answer: every answer's, the rate limiter's and the route's own. */
function successHeaders(route: AnyRoute): Record<string, unknown> {
  const own = Object.entries(route.responseHeaders ?? {}).map(([name, description]) => [
    name,
    { description, schema: { type: 'string' } },
  ]);
  return { ...headerRefs(['X-Request-Id', ...RATE_LIMIT_HEADERS]), ...Object.fromEntries(own) };
}

/**
 * The status of a route's success answer: 201 for a sub-account's creation, as the reference has it;
 * 202 for a webhook replay (the events go out later, as jobs).
 */
function successStatus(route: AnyRoute): string {
  return String(route.successStatus ?? 200);
}

/** The OpenAPI operation of one route. */
function operationOf(route: AnyRoute, responses: ResponseSchemas): JsonSchema {
  const pathParameters = [...route.path.matchAll(/:([A-Za-z_]\w*)/g)].map((match) => ({
    name: match[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const parameters = [...pathParameters, ...queryParameters(route), ...headerParameters(route)];
  return {
    operationId: operationId(route),
    tags: [route.auth === 'account' ? 'account' : 'subaccount'],
    security: [{ [route.auth === 'account' ? 'accountAuth' : 'subAccountAuth']: [] }],
    ...(parameters.length > 0 && { parameters }),
    ...(route.body && {
      requestBody: { required: true, content: { 'application/json': { schema: jsonSchemaOf(route.body) } } },
    }),
    ...(route.streamedBody && {
      requestBody: {
        required: true,
        description: route.streamedBody.description,
        content: { [route.streamedBody.mediaType]: { schema: { type: 'string' } } },
      },
    }),
    responses: {
      [successStatus(route)]: {
        description: 'Success.',
        headers: successHeaders(route),
        content: responses.contentOf(route),
      },
      ...errorResponses(route),
    },
  };
}

/** Builds the OpenAPI 3.1 document of `routes` (plus the document's own operation). */
export function buildOpenApiDocument(routes: readonly AnyRoute[], version = '1.0.0'): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  const responses = responseSchemas(routes);
  for (const route of routes) {
    const operations = (paths[openApiPath(route.path)] ??= {});
    operations[route.method.toLowerCase()] = operationOf(route, responses);
  }
  paths[OPENAPI_PATH] = {
    get: {
      operationId: 'getOpenApiDocument',
      tags: ['meta'],
      security: [],
      responses: {
        '200': { description: 'This document.', content: { 'application/json': { schema: { type: 'object' } } } },
      },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'mailplane API',
      version,
      description:
        "The /api/v1 surface of mailplane: the SendPost API and mailplane's additions, generated from its route table.",
    },
    servers: [{ url: '/api/v1' }],
    paths,
    components: {
      schemas: {
        ...responses.components,
        Error: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$', description: 'Stable error code (UPPER_SNAKE).' },
            message: { type: 'string', description: 'What went wrong, in plain words.' },
            details: { description: 'Per-problem details, e.g. the fields of a 422.' },
          },
        },
      },
      headers: COMMON_HEADERS,
      securitySchemes: {
        accountAuth: { type: 'apiKey', in: 'header', name: 'X-Account-ApiKey' },
        subAccountAuth: { type: 'apiKey', in: 'header', name: 'X-SubAccount-ApiKey' },
      },
    },
  };
}
