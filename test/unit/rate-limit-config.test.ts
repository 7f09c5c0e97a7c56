import { describe, expect, it } from 'vitest';
import { createMailplane, defaultRateLimitConfig, resolveRateLimitConfig } from 'mailplane';
import { createMemoryStore } from 'mailplane/testing';

describe('rate-limit configuration', () => {
  it('fills the defaults, keeps what is given, and is off with false', () => {
    expect(resolveRateLimitConfig(undefined)).toEqual({ requestsPerMinute: 6_000, recipientsPerMinute: 600_000 });
    expect(resolveRateLimitConfig({ requestsPerMinute: 10 })).toEqual({
      ...defaultRateLimitConfig,
      requestsPerMinute: 10,
    });
    expect(resolveRateLimitConfig(false)).toBe(false);
  });

  it('makes createMailplane refuse figures that are not positive integers, by name', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() =>
        createMailplane({
          store: createMemoryStore(),
          secret: 'x'.repeat(40),
          rateLimits: { recipientsPerMinute: bad },
        }),
      ).toThrow(/rateLimits\.recipientsPerMinute: got .*; expected a whole number of at least 1/);
    }
  });

  it('makes createMailplane refuse a bad figure at start rather than at the first request', () => {
    expect(() =>
      createMailplane({
        store: { messages: {}, webhooks: {} } as never,
        secret: 'x'.repeat(40),
        rateLimits: { requestsPerMinute: Number('abc') },
      }),
    ).toThrow(/requestsPerMinute/);
  });
});
