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
  const words = route.path.split('/').filter(Boolean).map((part) => (part.startsWith(':') ? `by_${part.slice(1)}` : part));
  const camel = words.join('_').replace(/[_-]+(\w)/g, (_match, letter: string) => letter.toUpperCase());
  return `${route.method.toLowerCase()}${camel.charAt(0).toUpperCase()}${camel.slice(1)}`;
}

/** The query parameters of `route`, one per property of its query schema. */
function queryParameters(route: AnyRoute): JsonSchema[] {
  if (!route.query) return [];
  const schema = jsonSchemaOf(route.query);
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries((schema.properties as Record<string, JsonSchema> | undefined) ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema: property,
  }));
}

/** The error statuses `route` can answer, each with its description and the error body. */
function errorResponses(route: AnyRoute): Record<string, unknown> {
  const statuses = ['401', '403', '429', '503'];
  if (route.path.includes(':')) statuses.push('406');
  if (route.body) statuses.push('413');
  if (route.body || route.query) statuses.push('422');
  statuses.sort();
  return Object.fromEntries(
    statuses.map((status) => [status, { description: ERROR_STATUSES[status], content: { 'application/json': { schema: ERROR_REF } } }]),
  );
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
  return {
    operationId: operationId(route),
    tags: [route.auth === 'account' ? 'account' : 'subaccount'],
    security: [{ [route.auth === 'account' ? 'accountAuth' : 'subAccountAuth']: [] }],
    ...(pathParameters.length + (route.query ? 1 : 0) > 0 && { parameters: [...pathParameters, ...queryParameters(route)] }),
    ...(route.body && { requestBody: { required: true, content: { 'application/json': { schema: jsonSchemaOf(route.body) } } } }),
    responses: {
      [successStatus(route)]: { description: 'Success.', content: responses.contentOf(route) },
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
      responses: { '200': { description: 'This document.', content: { 'application/json': { schema: { type: 'object' } } } } },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'mailplane API',
      version,
      description: 'The /api/v1 surface of mailplane: the SendPost API and mailplane\'s additions, generated from its route table.',
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
      securitySchemes: {
        accountAuth: { type: 'apiKey', in: 'header', name: 'X-Account-ApiKey' },
        subAccountAuth: { type: 'apiKey', in: 'header', name: 'X-SubAccount-ApiKey' },
      },
    },
  };
}

