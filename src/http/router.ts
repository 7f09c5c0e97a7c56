import { randomUUID } from 'node:crypto';
import { MethodNotAllowedError, PayloadTooLargeError, RouteNotFoundError, ValidationError } from '../errors.js';
import { authenticate } from './auth.js';
import { describeError } from '../logging/describe-error.js';
import { errorResponse, httpErrorRule } from './errors.js';
import { jsonResponse } from './json.js';
import { buildOpenApiDocument, OPENAPI_PATH } from './openapi.js';
import { createRateLimiter } from '../rate-limits/limiter.js';
import { withStoredSecretsHidden } from './route-secrets.js';
import type { AnyRoute, ApiDeps } from './route.js';
import { drainBody, readStreamedBody, unsupportedMediaType } from './streamed-request.js';
import type { HttpHandler, HttpRequest, HttpResponse } from './types.js';
import { parseOrThrow } from './validation.js';

/** Options of `createRouter`. */
export interface RouterOptions {
  /** Largest accepted request body in bytes; larger ones get 413 (default {@link DEFAULT_BODY_LIMIT}). */
  bodyLimitBytes?: number;
}

/** Default body limit: 8 MiB, room for a few MB of base64 attachments; 10 MB bodies get 413. */
export const DEFAULT_BODY_LIMIT = 8 * 1024 * 1024;

interface CompiledRoute {
  route: AnyRoute;
  segments: string[];
}

/** Splits a path into segments, accepting it with or without the trailing slash. */
function splitPath(path: string): string[] {
  return path
    .split('/')
    .filter((segment, index, all) => !(segment === '' && (index === 0 || index === all.length - 1)));
}

function match(compiled: CompiledRoute, segments: string[]): Record<string, string> | null {
  if (compiled.segments.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const pattern = compiled.segments[i]!;
    const actual = segments[i]!;
    if (pattern.startsWith(':')) {
      try {
        params[pattern.slice(1)] = decodeURIComponent(actual);
      } catch {
        params[pattern.slice(1)] = actual;
      }
    } else if (pattern !== actual) return null;
  }
  return params;
}

function firstValues(query: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of query) if (!(key in out)) out[key] = value;
  return out;
}

async function readBody(request: HttpRequest, limit: number): Promise<unknown> {
  // A `text/csv` body the bridge streamed (src/http/streamed-request.ts) to a route that takes JSON.
  const rawBody = request.bodyStream ? await readStreamedBody(request, limit) : request.rawBody;
  if (rawBody === undefined) return request.body;
  const size = typeof rawBody === 'string' ? Buffer.byteLength(rawBody) : rawBody.byteLength;
  if (size > limit) throw new PayloadTooLargeError(limit);
  const text = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ValidationError('the body is not valid JSON', [], 'MALFORMED_JSON');
  }
}

/**
 * Builds the framework-neutral handler of the `/api/v1` surface from a route table. It never
 * throws: every failure becomes a JSON error response with a stable code.
 */
export function createRouter(ctx: ApiDeps, routes: readonly AnyRoute[], options: RouterOptions = {}): HttpHandler {
  const compiled: CompiledRoute[] = routes.map((route) => ({ route, segments: splitPath(route.path) }));
  const bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const limiter = ctx.config.rateLimits === false ? null : createRateLimiter(ctx, ctx.config.rateLimits);
  // Built on first request, then kept: the route table of a router never changes.
  let openApi: unknown;

  const answer = async (request: HttpRequest, matched: { route?: string }): Promise<HttpResponse> => {
    const segments = splitPath(request.path);
    const method = request.method.toUpperCase();
    // The API's own description needs no key: client generators fetch it before they have one.
    if (method === 'GET' && segments.length === 1 && `/${segments[0]}` === OPENAPI_PATH) {
      openApi ??= buildOpenApiDocument(routes);
      return jsonResponse(200, openApi);
    }
    let found: { route: AnyRoute; params: Record<string, string> } | undefined;
    const allowed: string[] = [];
    for (const candidate of compiled) {
      const params = match(candidate, segments);
      if (!params) continue;
      if (candidate.route.method === method) {
        found = { route: candidate.route, params };
        break;
      }
      allowed.push(candidate.route.method);
    }
    if (!found) {
      return errorResponse(
        allowed.length > 0
          ? new MethodNotAllowedError(method, allowed)
          : new RouteNotFoundError(`no endpoint ${method} ${request.path}`),
      );
    }
    const { route, params } = found;
    matched.route = route.path;
    // Rate-limit headers go on every answer to an authenticated request, errors included.
    let limitHeaders: Record<string, string> = {};
    try {
      const principal = await authenticate(ctx, route.auth, request.headers);
      let query: unknown;
      let body: unknown;
      let invalid: unknown;
      try {
        query = route.query ? parseOrThrow(route.query, firstValues(request.query), 'query') : undefined;
        body = route.body ? parseOrThrow(route.body, await readBody(request, bodyLimit), 'body') : undefined;
        const wrongMediaType = route.streamedBody && unsupportedMediaType(route.streamedBody, request);
        if (wrongMediaType) throw wrongMediaType;
      } catch (error) {
        invalid = error;
      }
      if (limiter) {
        // A request that fails validation still costs one unit, so bad requests are limited too.
        const cost = route.rateLimit && invalid === undefined ? route.rateLimit.cost(body) : 1;
        const owner =
          principal.kind === 'account'
            ? { kind: principal.kind, id: principal.account.id }
            : { kind: principal.kind, id: principal.subAccount.id };
        const decision = await limiter.hit(owner, route.rateLimit?.allowance ?? 'requests', cost);
        limitHeaders = decision.headers;
        if (decision.refusal) throw decision.refusal;
      }
      if (invalid !== undefined) throw invalid;
      const result = await route.handle({ params, query, body, principal, ctx, request });
      const answered = withStoredSecretsHidden(route, request, result.body);
      return jsonResponse(result.status ?? route.successStatus ?? 200, answered, {
        ...limitHeaders,
        ...result.headers,
      });
    } catch (error) {
      if (httpErrorRule(error).fault)
        ctx.logger.error('request failed', { method, route: route.path, error: describeError(error) });
      return errorResponse(error, limitHeaders);
    }
  };
  // Every answer is counted by route pattern (never the concrete path, whose ids are unbounded),
  // logged as one access line, and carries its request id.
  return async (request) => {
    const startedAt = performance.now();
    const requestId = requestIdOf(request.headers['x-request-id']);
    const matched: { route?: string } = {};
    const response = await answer(request, matched);
    // What a route left of a streamed body (a refusal before reading it) is read off before answering.
    await drainBody(request.bodyStream);
    const route = matched.route ?? 'unmatched';
    const method = request.method.toUpperCase();
    // A label takes a fixed set of values: a bridge that passes any method token cannot grow it.
    ctx.metrics.httpRequests.inc({
      method: METRIC_METHODS.has(method) ? method : 'OTHER',
      route,
      status: String(response.status),
    });
    ctx.logger.info('http request', {
      method,
      route,
      status: response.status,
      durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
      requestId,
    });
    return { ...response, headers: { ...response.headers, 'x-request-id': requestId } };
  };
}

/** Methods counted under their own name in the request metric; any other is `OTHER`. */
const METRIC_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** An incoming `X-Request-Id` when it is sane (once, ≤ 64 of `[A-Za-z0-9._-]`), else a new one. */
export function requestIdOf(header: string | string[] | undefined): string {
  const given = Array.isArray(header) ? (header.length === 1 ? header[0] : undefined) : header;
  return given !== undefined && /^[A-Za-z0-9._-]{1,64}$/.test(given) ? given : randomUUID();
}
