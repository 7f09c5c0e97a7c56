/**
 * `mailplane.handler`: the API, the links, health and metrics behind one handler, mounted in one
 * line on real node:http, Express and Koa servers (the host's own routes still answer), and
 * `withDashboard` adding the console. On SQLite and PostgreSQL.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { toNodeHandler } from 'mailplane/node';
import { toExpress } from 'mailplane/express';
import { toKoa } from 'mailplane/koa';
import { withDashboard } from 'mailplane/dashboard';
import { createSmtpRelay } from 'mailplane';
import { createTestApi, type TestApi } from '../support/api.js';
import { storeKinds } from '../support/databases.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(listener: RequestListener): Promise<string> {
  const server: Server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function instance(kind: (typeof storeKinds)[number], options: Parameters<typeof createTestApi>[1] = {}) {
  const api = await createTestApi(kind, options);
  cleanups.push(() => api.close());
  return api;
}

/** The answers a user checks first: the API with the key, health, metrics, a link, and a path of nobody's. */
async function checkServed(base: string, api: TestApi) {
  const account = await fetch(`${base}/api/v1/account/subaccount`, { headers: { 'x-account-apikey': api.accountKey } });
  expect(account.status).toBe(200);
  expect(account.headers.get('x-request-id')).toBeTruthy();
  expect((await fetch(`${base}/healthz`)).status).toBe(200);
  expect((await fetch(`${base}/readyz`)).status).toBe(200);
  const metrics = await fetch(`${base}/metrics`, { headers: { 'x-request-id': 'scrape-1' } });
  expect(metrics.status).toBe(200);
  expect(await metrics.text()).toContain('mailplane_http_requests_total');
  expect(metrics.headers.get('x-request-id')).toBe('scrape-1');
  // A link of the links handler: an open-tracking pixel with a token no instance signed.
  const link = await fetch(`${base}/t/open/not-a-token`);
  expect(link.headers.get('content-type') ?? '').not.toContain('json');
}

describe.each(storeKinds)('mailplane.handler on %s', (kind) => {
  it('serves everything on node:http in one line, and answers 404 JSON elsewhere', async () => {
    const api = await instance(kind, { metrics: {} });
    const base = await serve(toNodeHandler(api.mailplane.handler));
    await checkServed(base, api);
    const elsewhere = await fetch(`${base}/nothing-here`);
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toMatchObject({ code: 'ROUTE_NOT_FOUND' });
    expect(elsewhere.headers.get('x-request-id')).toBeTruthy();
  });

  it('is one line on Express and on Koa, and the host keeps its own routes', async () => {
    const api = await instance(kind, { metrics: {} });
    const app = express();
    app.use(toExpress(api.mailplane.handler));
    app.get('/own', (_req, res) => void res.send('express own'));
    const expressBase = await serve(app);
    await checkServed(expressBase, api);
    expect(await (await fetch(`${expressBase}/own`)).text()).toBe('express own');

    const koa = new Koa();
    koa.use(toKoa(api.mailplane.handler));
    koa.use((ctx) => void (ctx.body = 'koa own'));
    const koaBase = await serve(koa.callback());
    await checkServed(koaBase, api);
    expect(await (await fetch(`${koaBase}/own`)).text()).toBe('koa own');
  });

  it('serves /metrics only when the metrics option is set, and the links under the tracking URL path', async () => {
    const api = await instance(kind, { trackingBaseUrl: 'https://mail.example.com/mail/links' });
    const base = await serve(toNodeHandler(api.mailplane.handler));
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
    expect((await fetch(`${base}/t/open/not-a-token`)).status).toBe(404);
    const link = await fetch(`${base}/mail/links/open/not-a-token`);
    expect(link.headers.get('content-type') ?? '').not.toContain('json');
  });

  it('adds the dashboard with withDashboard, still one line', async () => {
    const api = await instance(kind);
    const base = await serve(toNodeHandler(withDashboard(api.mailplane)));
    const page = await fetch(`${base}/dashboard/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(
      (await fetch(`${base}/api/v1/account/subaccount`, { headers: { 'x-account-apikey': api.accountKey } })).status,
    ).toBe(200);
  });
});

describe('handleMetrics mounted alone', () => {
  it('carries X-Request-Id as every other answer does', async () => {
    const api = await instance(storeKinds[0]!);
    const response = await api.mailplane.handleMetrics({
      method: 'GET',
      path: '/metrics',
      headers: { 'x-request-id': 'scrape-2' },
      query: new URLSearchParams(),
    });
    expect(response.status).toBe(200);
    expect(response.headers['x-request-id']).toBe('scrape-2');
  });
});

describe('the internal context', () => {
  it('is out of reach of the public type, and the relay takes the instance', async () => {
    const api = await instance(storeKinds[0]!);
    expect(Object.keys(api.mailplane)).not.toContain('context');
    const relay = createSmtpRelay(api.mailplane);
    const { port } = await relay.listen(0, '127.0.0.1');
    expect(port).toBeGreaterThan(0);
    await relay.close();
    expect(() => createSmtpRelay({ ...api.mailplane })).not.toThrow();
    expect(() => createSmtpRelay({ handle: api.mailplane.handle } as never)).toThrow(
      'expected a mailplane instance made by createMailplane()',
    );
  });
});
