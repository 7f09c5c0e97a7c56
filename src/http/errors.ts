/**
 * How the HTTP API answers errors: one table from {@link ErrorKind} to status, and the one function
 * that builds every JSON error response, used by the router and by every bridge's fallback paths
 * (adapters/http). The spec's statuses are here: 401 bad key, 403 duplicate or not allowed, 406
 * unknown id, 422 malformed, 429 rate limit.
 */
import {
  errorKindOf,
  MethodNotAllowedError,
  RateLimitedError,
  type ErrorKind,
  type MailplaneError,
} from '../errors.js';
import { jsonResponse } from './json.js';
import type { HttpResponse } from './types.js';

/** How errors of one kind are answered over HTTP. */
export interface HttpErrorRule {
  /** The status code. */
  status: number;
  /**
   * The code and message answered instead of the error's own. Faults answer a fixed text: their
   * own message is for the log (it may name files, hosts or queries).
   */
  answer?: { code: string; message: string };
  /** A failure of mailplane rather than of the request: logged by whoever answers it. */
  fault: boolean;
  /** Headers the answer carries, taken from the error. */
  headers?: (error: MailplaneError) => Record<string, string>;
}

/** The body of a 500: the failure itself is logged, never sent. */
const INTERNAL = { code: 'INTERNAL_ERROR', message: 'the request failed inside mailplane; it has been logged' };

/**
 * Seconds a client is told to wait after a `503`. The causes (a database restarting or failing
 * over, a lock held past the busy timeout, a full or read-only disk) end on their own or by an
 * operator's hand, never by the client's: a short fixed wait lets retries find the recovery soon
 * without hammering a database that is struggling.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** The HTTP answer of every {@link ErrorKind}. */
export const HTTP_ERROR_RULES: Readonly<Record<ErrorKind, HttpErrorRule>> = {
  'bad-request': { status: 400, fault: false },
  unauthorized: { status: 401, fault: false },
  forbidden: { status: 403, fault: false },
  // The spec answers a duplicate 403, not 409.
  conflict: { status: 403, fault: false },
  // The spec's "missing resource id" is 406, not 404.
  'not-found': { status: 406, fault: false },
  gone: { status: 410, fault: false },
  'unknown-route': { status: 404, fault: false },
  'method-not-allowed': {
    status: 405,
    fault: false,
    headers: (error): Record<string, string> =>
      error instanceof MethodNotAllowedError ? { allow: error.allowed.join(', ') } : {},
  },
  invalid: { status: 422, fault: false },
  'too-large': { status: 413, fault: false },
  'rate-limited': {
    status: 429,
    fault: false,
    headers: (error): Record<string, string> =>
      error instanceof RateLimitedError ? { 'retry-after': String(error.retryAfterSeconds) } : {},
  },
  unavailable: {
    status: 503,
    fault: true,
    answer: { code: 'SERVICE_UNAVAILABLE', message: 'a service mailplane depends on is unavailable; try again later' },
    headers: (): Record<string, string> => ({ 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS) }),
  },
  storage: { status: 500, fault: true, answer: INTERNAL },
  internal: { status: 500, fault: true, answer: INTERNAL },
};

/** The rule that answers `error` (kind `internal` for anything that is no {@link MailplaneError}). */
export function httpErrorRule(error: unknown): HttpErrorRule {
  return HTTP_ERROR_RULES[errorKindOf(error)];
}

/** The HTTP status `error` is answered with. */
export function httpStatusOf(error: unknown): number {
  return httpErrorRule(error).status;
}

/**
 * The JSON error response for `error`: the status of its kind and `{code, message, details?}`.
 * `extraHeaders` (the rate-limit headers of the request) go on every answer but a 500, which
 * carries nothing from the request that failed.
 */
export function errorResponse(error: unknown, extraHeaders: Record<string, string> = {}): HttpResponse {
  const rule = httpErrorRule(error);
  const own = error as MailplaneError;
  if (rule.answer)
    return jsonResponse(
      rule.status,
      rule.answer,
      rule.status === 500 ? {} : { ...extraHeaders, ...rule.headers?.(own) },
    );
  const body: Record<string, unknown> = { code: own.code, message: own.message };
  if (own.details !== undefined) body.details = own.details;
  return jsonResponse(rule.status, body, { ...extraHeaders, ...rule.headers?.(own) });
}
