/**
 * The example servers' observability, run as `npm start` runs them: `/metrics` only with
 * `MAILPLANE_METRICS=1`, behind `MAILPLANE_METRICS_TOKEN`; JSON access lines on stdout through
 * pino at `MAILPLANE_LOG_LEVEL`, with the request id echoed in `X-Request-Id`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExampleUntilExit, startExample, type ExampleServer } from '../support/example-server.js';

const TOKEN = 'metrics-token-for-the-e2e-test';

describe.each(['express', 'koa'] as const)('the %s example with metrics on', (name) => {
  let server: ExampleServer;
  beforeAll(async () => {
    server = await startExample(name, {
      MAILPLANE_METRICS: '1',
      MAILPLANE_METRICS_TOKEN: TOKEN,
      MAILPLANE_LOG_LEVEL: 'info',
    });
  });
  afterAll(() => server?.stop());
  const origin = () => new URL(server.baseUrl).origin;

  it('serves /metrics with the token only, counting the API requests by route pattern', async () => {
    const api = await fetch(`${server.baseUrl}/account/subaccount`, {
      headers: { 'x-account-apikey': server.accountKey, 'x-request-id': 'e2e-req-1' },
    });
    expect(api.status).toBe(200);
    expect(api.headers.get('x-request-id')).toBe('e2e-req-1');
    const denied = await fetch(`${origin()}/metrics`);
    expect(denied.status).toBe(401);
    expect(await denied.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    const scraped = await fetch(`${origin()}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toMatch(
      /^mailplane_http_requests_total\{method="GET",route="\/account\/subaccount",status="200"\} 1$/m,
    );
  });

  it('writes the access line as JSON on stdout, without the key', async () => {
    await expect.poll(() => server.output().includes('"requestId":"e2e-req-1"'), { timeout: 10_000 }).toBe(true);
    const line = server
      .output()
      .split('\n')
      .find((l) => l.includes('"requestId":"e2e-req-1"'))!;
    expect(JSON.parse(line)).toMatchObject({
      level: 'info',
      message: 'http request',
      method: 'GET',
      route: '/account/subaccount',
      status: 200,
    });
    expect(server.output().split(server.accountKey)).toHaveLength(2); // the one start-up print
  });
});

describe('the express example without MAILPLANE_METRICS', () => {
  it('does not serve /metrics, and writes no access line at MAILPLANE_LOG_LEVEL=warn', async () => {
    const server = await startExample('express', { MAILPLANE_LOG_LEVEL: 'warn' });
    try {
      expect((await fetch(`${new URL(server.baseUrl).origin}/metrics`)).status).toBe(404);
      await fetch(`${server.baseUrl}/account/subaccount`, { headers: { 'x-account-apikey': server.accountKey } });
      expect(server.output()).not.toContain('"message":"http request"');
    } finally {
      await server.stop();
    }
  });
});

describe('the koa example with an unknown MAILPLANE_LOG_LEVEL', () => {
  it('refuses to start, naming the levels it accepts', async () => {
    const exit = await runExampleUntilExit('koa', { MAILPLANE_LOG_LEVEL: 'verbose' });
    expect(exit.code).toBe(1);
    expect(exit.stderr.trim()).toBe(
      'mailplane: cannot start: MAILPLANE_LOG_LEVEL="verbose": unknown log level; accepted: trace, debug, info, warn, error, fatal or silent (any case)',
    );
  });
});
