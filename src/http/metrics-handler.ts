/**
 * The handler of `GET /metrics`: the instance's registry in the Prometheus text format, behind
 * an optional bearer token.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import type { HttpHandler, HttpResponse } from './types.js';
import { withRequestId } from './mount.js';
import type { MailplaneMetrics } from '../metrics/metrics.js';

/** Options of {@link createMetricsHandler}. */
export interface MetricsHandlerOptions {
  /** When set, a scrape must send `Authorization: Bearer <token>`; otherwise 401. */
  token?: string;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Whether `header` carries `token` as a bearer token, given once; compared in constant time (over
 * digests, so lengths do not leak).
 */
function bearerMatches(header: string | string[] | undefined, token: string): boolean {
  const value = Array.isArray(header) ? (header.length === 1 ? header[0] : undefined) : header;
  const given = /^Bearer\s+(.+)$/i.exec(value ?? '')?.[1]?.trim() ?? '';
  return timingSafeEqual(digest(given), digest(token)) && given.length > 0;
}

const error = (status: number, code: string, message: string, headers: Record<string, string> = {}): HttpResponse => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  body: JSON.stringify({ code, message }),
});

/**
 * `GET /metrics` (or any path it is mounted at): 200 with the metrics text, 401
 * `{"code":"UNAUTHORIZED"}` without the right bearer token when one is configured, 405 for other methods.
 */
export function createMetricsHandler(metrics: MailplaneMetrics, options: MetricsHandlerOptions = {}): HttpHandler {
  // Mounted alone too (`mailplane.handleMetrics`): it carries the request id as every other answer does.
  const answer: HttpHandler = async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return error(405, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed here: use GET`, { allow: 'GET, HEAD' });
    }
    if (options.token !== undefined && !bearerMatches(request.headers.authorization, options.token)) {
      return error(
        401,
        'UNAUTHORIZED',
        'the metrics need the bearer token: send Authorization: Bearer <MAILPLANE_METRICS_TOKEN>',
        { 'www-authenticate': 'Bearer' },
      );
    }
    try {
      const body = await metrics.registry.metrics();
      return {
        status: 200,
        headers: { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' },
        body,
      };
    } catch (failure) {
      // The queue gauge reads the store: a store that is down answers 503, never a crash.
      return error(
        503,
        'METRICS_UNAVAILABLE',
        `the metrics could not be read: ${failure instanceof Error ? failure.message : String(failure)}`,
      );
    }
  };
  return async (request) => withRequestId(await answer(request), request.headers['x-request-id']);
}
