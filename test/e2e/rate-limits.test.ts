import { describe, expect, it } from 'vitest';
import { startExample } from '../support/example-server.js';

describe.each(['express', 'koa'] as const)('the %s example with rate limits from the environment', (name) => {
  it('answers 429 with Retry-After, the X-RateLimit headers and the JSON error over HTTP', async () => {
    const server = await startExample(name, { MAILPLANE_RATE_LIMIT_REQUESTS_PER_MINUTE: '3' });
    try {
      // 7 requests span at most two one-minute windows, so at least one is refused even across a boundary.
      const answers = [];
      for (let i = 0; i < 7; i++)
        answers.push(
          await fetch(`${server.baseUrl}/account/subaccount`, { headers: { 'x-account-apikey': server.accountKey } }),
        );
      expect(answers[0]!.status).toBe(200);
      expect(answers[0]!.headers.get('x-ratelimit-limit')).toBe('3');
      expect(Number(answers[0]!.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 1);
      const refused = answers.find((r) => r.status === 429)!;
      expect(refused).toBeDefined();
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(await refused.json()).toMatchObject({
        code: 'RATE_LIMITED',
        message: expect.stringMatching(/^too many requests: this key may make 3 requests a minute/),
      });
    } finally {
      await server.stop();
    }
  });

  it('turns them off with MAILPLANE_RATE_LIMITS=off', async () => {
    const server = await startExample(name, {
      MAILPLANE_RATE_LIMITS: 'off',
      MAILPLANE_RATE_LIMIT_REQUESTS_PER_MINUTE: '1',
    });
    try {
      for (let i = 0; i < 3; i++) {
        const response = await fetch(`${server.baseUrl}/account/subaccount`, {
          headers: { 'x-account-apikey': server.accountKey },
        });
        expect(response.status).toBe(200);
        expect(response.headers.get('x-ratelimit-limit')).toBeNull();
      }
    } finally {
      await server.stop();
    }
  });
});
