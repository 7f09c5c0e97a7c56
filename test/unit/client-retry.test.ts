import { describe, expect, it } from 'vitest';
import { isSafeToRetry, parseRetryAfter } from 'mailplane/client';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-05-01T12:00:00Z');

  it('reads whole seconds and HTTP dates as milliseconds to wait', () => {
    expect(parseRetryAfter('12', now)).toBe(12_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Fri, 01 May 2026 12:00:07 GMT', now)).toBe(7_000);
    // A date already past asks for no wait at all.
    expect(parseRetryAfter('Fri, 01 May 2026 11:59:00 GMT', now)).toBe(0);
  });

  it('ignores what is absent or not one of the two forms', () => {
    for (const value of [
      null,
      undefined,
      '',
      '-1',
      '1.5',
      'soon',
      '2026-05-01T12:00:07Z',
      'Fri, 01 May 2026 12:00:07',
    ]) {
      expect(parseRetryAfter(value, now), String(value)).toBeUndefined();
    }
  });
});

describe('isSafeToRetry', () => {
  const request = (method: string, headers: Record<string, string> = {}) =>
    new Request('http://127.0.0.1/api/v1/subaccount/email', { method, headers });

  it('retries any request refused by the rate limiter, which did nothing', () => {
    for (const method of ['GET', 'POST', 'PUT', 'DELETE']) expect(isSafeToRetry(request(method), 429)).toBe(true);
  });

  it('retries a 503 only for reads and requests with an Idempotency-Key', () => {
    expect(isSafeToRetry(request('GET'), 503)).toBe(true);
    expect(isSafeToRetry(request('POST', { 'Idempotency-Key': 'k1' }), 503)).toBe(true);
    expect(isSafeToRetry(request('POST'), 503)).toBe(false);
    expect(isSafeToRetry(request('DELETE'), 503)).toBe(false);
  });

  it('never retries other statuses', () => {
    for (const status of [200, 400, 422, 500, 502, 504]) expect(isSafeToRetry(request('GET'), status)).toBe(false);
  });
});
