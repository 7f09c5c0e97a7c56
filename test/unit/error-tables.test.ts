/**
 * The two edge tables of the error model: every kind has an HTTP answer and an SMTP reply, and they
 * are the ones the API and the relay gave before errors had kinds (the spec's 401/403/406/422/429).
 */
import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ConflictError,
  ERROR_KINDS,
  errorResponse,
  ForbiddenError,
  GoneError,
  HTTP_ERROR_RULES,
  httpStatusOf,
  MailplaneError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  RouteNotFoundError,
  StorageError,
  UnauthorizedError,
  UnavailableError,
  ValidationError,
  type ErrorKind,
} from 'mailplane';
import { SMTP_ERROR_REPLIES, smtpReplyFor } from '../../src/smtp/errors.js';

/** One error of each kind, as mailplane throws them. */
const samples: Record<ErrorKind, MailplaneError> = {
  'bad-request': new BadRequestError('BAD_REQUEST_TARGET', 'the request target is not a valid URL or path'),
  unauthorized: new UnauthorizedError('INVALID_API_KEY', 'the X-Account-ApiKey header does not hold a valid key'),
  forbidden: new ForbiddenError('SUBACCOUNT_BLOCKED', 'this sub-account is blocked and cannot send'),
  conflict: new ConflictError('DOMAIN_EXISTS', 'the domain example.com already exists in this sub-account'),
  'not-found': new NotFoundError('DOMAIN_NOT_FOUND', 'no domain with id 9 in this sub-account'),
  gone: new GoneError('INBOUND_RAW_NOT_KEPT', 'the raw copy of this message was not kept'),
  'unknown-route': new RouteNotFoundError('no endpoint GET /nothing'),
  'method-not-allowed': new MethodNotAllowedError('PUT', ['GET', 'POST']),
  invalid: new ValidationError('the body is not valid (name: required)', [{ path: 'name', message: 'required' }]),
  'too-large': new PayloadTooLargeError(1024),
  'rate-limited': new RateLimitedError('too many requests', 7),
  unavailable: new UnavailableError(
    'storage unavailable in accounts.get: connect ECONNREFUSED 127.0.0.1:1',
    new Error('ECONNREFUSED'),
  ),
  storage: new StorageError('storage failed in messages.get: no such table: messages', new Error('no such table')),
  internal: new MailplaneError('internal', 'BUG', 'a bug'),
};

const body = (error: unknown) => JSON.parse(errorResponse(error).body) as Record<string, unknown>;

describe('the HTTP table', () => {
  it('maps every kind to the status the API answers it with', () => {
    expect(Object.keys(HTTP_ERROR_RULES).sort()).toEqual([...ERROR_KINDS].sort());
    const statuses = Object.fromEntries(ERROR_KINDS.map((kind) => [kind, httpStatusOf(samples[kind])]));
    expect(statuses).toEqual({
      'bad-request': 400,
      unauthorized: 401,
      forbidden: 403,
      conflict: 403,
      'not-found': 406,
      gone: 410,
      'unknown-route': 404,
      'method-not-allowed': 405,
      invalid: 422,
      'too-large': 413,
      'rate-limited': 429,
      unavailable: 503,
      storage: 500,
      internal: 500,
    });
    for (const kind of ERROR_KINDS)
      expect(errorResponse(samples[kind]).status, kind).toBe(HTTP_ERROR_RULES[kind].status);
  });

  it('answers a request error with its own code, message and details, and the headers of its kind', () => {
    expect(body(samples.invalid)).toEqual({
      code: 'VALIDATION_FAILED',
      message: 'the body is not valid (name: required)',
      details: [{ path: 'name', message: 'required' }],
    });
    expect(body(samples.conflict)).toEqual({
      code: 'DOMAIN_EXISTS',
      message: 'the domain example.com already exists in this sub-account',
    });
    expect(errorResponse(samples['rate-limited'], { 'x-ratelimit-limit': '5' }).headers).toMatchObject({
      'retry-after': '7',
      'x-ratelimit-limit': '5',
    });
    expect(errorResponse(samples['method-not-allowed']).headers).toMatchObject({ allow: 'GET, POST' });
    expect(errorResponse(samples['too-large'])).toMatchObject({
      status: 413,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
    });
  });

  it('never answers a fault with its own message, and a 500 carries none of the request headers', () => {
    const internal = { code: 'INTERNAL_ERROR', message: 'the request failed inside mailplane; it has been logged' };
    expect(body(samples.storage)).toEqual(internal);
    expect(body(samples.internal)).toEqual(internal);
    expect(body(new TypeError('x is undefined'))).toEqual(internal);
    expect(errorResponse(new TypeError('x'), { 'x-ratelimit-limit': '5' }).headers).not.toHaveProperty(
      'x-ratelimit-limit',
    );
    expect(body(samples.unavailable)).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      message: 'a service mailplane depends on is unavailable; try again later',
    });
    expect(errorResponse(samples.unavailable, { 'x-ratelimit-limit': '5' }).headers).toMatchObject({
      'x-ratelimit-limit': '5',
      'retry-after': '5',
    });
    for (const kind of ['unavailable', 'storage', 'internal'] as const)
      expect(HTTP_ERROR_RULES[kind].fault, kind).toBe(true);
  });
});

describe('the SMTP table', () => {
  it("maps every kind: the client's errors are refused for good with the API's code, faults are 451 4.3.0", () => {
    expect(Object.keys(SMTP_ERROR_REPLIES).sort()).toEqual([...ERROR_KINDS].sort());
    const replies = Object.fromEntries(
      ERROR_KINDS.map((kind) => {
        const reply = smtpReplyFor(samples[kind]);
        return [kind, `${reply.responseCode} ${reply.message}`];
      }),
    );
    expect(replies).toEqual({
      'bad-request': '550 5.7.0 BAD_REQUEST_TARGET: the request target is not a valid URL or path',
      unauthorized: '550 5.7.0 INVALID_API_KEY: the X-Account-ApiKey header does not hold a valid key',
      forbidden: '550 5.7.0 SUBACCOUNT_BLOCKED: this sub-account is blocked and cannot send',
      conflict: '550 5.7.0 DOMAIN_EXISTS: the domain example.com already exists in this sub-account',
      'not-found': '550 5.7.0 DOMAIN_NOT_FOUND: no domain with id 9 in this sub-account',
      gone: '550 5.7.0 INBOUND_RAW_NOT_KEPT: the raw copy of this message was not kept',
      'unknown-route': '550 5.7.0 ROUTE_NOT_FOUND: no endpoint GET /nothing',
      'method-not-allowed': '550 5.7.0 METHOD_NOT_ALLOWED: PUT is not allowed here',
      invalid: '550 5.7.0 VALIDATION_FAILED: the body is not valid (name: required)',
      'too-large': '550 5.7.0 PAYLOAD_TOO_LARGE: request body exceeds the limit of 1024 bytes',
      'rate-limited': '450 4.7.0 RATE_LIMITED: too many requests',
      unavailable: '451 4.3.0 Temporary failure, try again later',
      storage: '451 4.3.0 Temporary failure, try again later',
      internal: '451 4.3.0 Temporary failure, try again later',
    });
    const bug = smtpReplyFor(new TypeError('x is undefined'));
    expect(`${bug.responseCode} ${bug.message}`).toBe('451 4.3.0 Temporary failure, try again later');
  });
});
