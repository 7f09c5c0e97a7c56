/**
 * The three bridges (node:http, Express, Koa) on real servers: a text answer goes out as UTF-8, and
 * a binary one (`bodyEncoding: 'base64'`, the open-tracking GIF) as its bytes. Then, over raw
 * sockets, every way a request or a response can go wrong is answered for that request alone and
 * the server answers the next request as before.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { toExpress } from '../../adapters/http/express/index.js';
import { toKoa } from '../../adapters/http/koa/index.js';
import { toNodeHandler, toRouterPath } from '../../adapters/http/node/index.js';
import type { Logger } from '../../src/logging/logger.js';
import type { HttpHandler, HttpResponse } from '../../src/http/types.js';
import { rawGet as get, rawRequest } from '../support/raw-http.js';

const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

const responses: Record<string, () => HttpResponse> = {
  '/pixel': () => ({
    status: 200,
    headers: { 'content-type': 'image/gif' },
    body: GIF.toString('base64'),
    bodyEncoding: 'base64',
  }),
  '/euro': () => ({ status: 302, headers: { location: 'https://example.org/€uro', 'x-kept': 'no' }, body: '' }),
  '/line-break': () => ({ status: 200, headers: { 'x-injected': 'a\r\nset-cookie: b=c' }, body: 'x' }),
  '/bad-status': () => ({ status: 1234, headers: {}, body: 'x' }),
  '/body-throws': () => ({
    status: 200,
    headers: { 'content-type': 'text/plain' },
    get body(): string {
      throw new Error('the body cannot be produced');
    },
  }),
  '/nothing': () => undefined as unknown as HttpResponse,
};

const handler: HttpHandler = async (request) => {
  if (request.path === '/throws') throw new Error('the handler failed');
  const make = responses[request.path];
  if (make) return make();
  return {
    status: 200,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
    body: `grüße ✓ ${request.path}?${request.query}`,
  };
};

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(listener: Parameters<typeof createServer>[1]): Promise<number> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A logger that keeps what the bridge reports, so the tests can read it instead of stderr. */
function keptLogger(): Pick<Logger, 'error'> & { lines: string[] } {
  const lines: string[] = [];
  return { lines, error: (message, fields) => lines.push(`${message} ${JSON.stringify(fields)}`) };
}

describe.each([
  ['node:http', (logger: Pick<Logger, 'error'>) => toNodeHandler(handler, { prefix: '/t', logger })],
  ['Express', (logger: Pick<Logger, 'error'>) => express().use('/t', toExpress(handler, { logger }))],
  ['Koa', (logger: Pick<Logger, 'error'>) => new Koa().use(toKoa(handler, { prefix: '/t', logger })).callback()],
] as const)('the %s bridge', (_name, listener) => {
  const start = async () => {
    const logger = keptLogger();
    const port = await serve(listener(logger) as Parameters<typeof createServer>[1]);
    return { logger, port };
  };

  it('writes text as UTF-8 and a base64 body as its bytes', async () => {
    const { port } = await start();
    const pixel = await fetch(`http://127.0.0.1:${port}/t/pixel`);
    expect(pixel.headers.get('content-type')).toBe('image/gif');
    expect(Buffer.from(await pixel.arrayBuffer()).equals(GIF)).toBe(true);
    expect(await (await fetch(`http://127.0.0.1:${port}/t/text`)).text()).toBe('grüße ✓ /text?');
  });

  it('serves an absolute-form request target by its path and query', async () => {
    const { port } = await start();
    expect(await get(port, 'http://mail.example.com/t/text?a=1')).toMatchObject({
      status: 200,
      body: 'grüße ✓ /text?a=1',
    });
    expect(await get(port, `http://127.0.0.1:${port}/t/text`)).toMatchObject({ status: 200, body: 'grüße ✓ /text?' });
  });

  it('answers a request target that is no URL with 400 BAD_REQUEST_TARGET, and keeps serving', async () => {
    const { port } = await start();
    // `http://a:99999/...` passes Express's own URL parser and reaches every bridge
    for (const target of ['http://a:99999/t/text', 'ftp://files.example/t/text']) {
      const answer = await get(port, target);
      expect(answer.status, target).toBe(400);
      expect(JSON.parse(answer.body)).toEqual({ code: 'BAD_REQUEST_TARGET', message: expect.any(String) });
    }
    // the README's case: Express rejects it before any middleware runs (its own 404), the others answer 400
    expect([400, 404]).toContain((await get(port, 'http://[/t/text')).status);
    expect(await get(port, '/t/text')).toMatchObject({ status: 200 });
  });

  it('replaces a response node refuses (non-Latin-1 or line break in a header, bad status) with a logged 500 JSON', async () => {
    const { port, logger } = await start();
    for (const path of ['/t/euro', '/t/line-break', '/t/bad-status', '/t/nothing', '/t/throws']) {
      const answer = await get(port, path);
      expect(answer.status, path).toBe(500);
      expect(answer.headers['content-type'], path).toBe('application/json; charset=utf-8');
      expect(answer.headers).not.toHaveProperty('x-kept');
      expect(answer.headers).not.toHaveProperty('set-cookie');
      expect(JSON.parse(answer.body), path).toMatchObject({ code: 'INTERNAL_ERROR' });
    }
    expect(logger.lines).toHaveLength(5);
    expect(logger.lines[0]).toContain('ERR_INVALID_CHAR');
    expect(await get(port, '/t/text')).toMatchObject({ status: 200, body: 'grüße ✓ /text?' });
  });

  it('closes only that connection when the body fails after the headers went out', async () => {
    const { port, logger } = await start();
    const answer = await get(port, '/t/body-throws');
    expect(answer.status === 'closed' || answer.status === 200 || answer.status === 500).toBe(true);
    if (answer.status === 200) expect(answer.body).toBe('');
    expect(logger.lines.join('\n')).toContain('the body cannot be produced');
    expect(await get(port, '/t/text')).toMatchObject({ status: 200 });
  });

  it('answers a body that ends before its declared length with 400 when the client half-closes', async () => {
    const { port } = await start();
    const answer = await rawRequest(
      port,
      'POST /t/text HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 10\r\n\r\nabc',
      true,
    );
    expect(answer.status === 'closed' || answer.status === 400).toBe(true);
    expect(await get(port, '/t/text')).toMatchObject({ status: 200 });
  });
});

describe('toRouterPath', () => {
  it('reads origin-form and absolute-form targets and never throws', () => {
    expect(toRouterPath('/api/v1/x?a=1', '/api/v1')).toMatchObject({ kind: 'route', path: '/x' });
    expect(toRouterPath('http://h/api/v1/x', '/api/v1')).toMatchObject({ kind: 'route', path: '/x' });
    // `//x` is a path, not a host named `x`
    expect(toRouterPath('//api/v1/x', '/api/v1')).toEqual({ kind: 'outside' });
    expect(toRouterPath('http://[/api/v1/account/subaccount', '/api/v1')).toEqual({ kind: 'malformed' });
    expect(toRouterPath('*', '/api/v1')).toEqual({ kind: 'outside' });
    expect(toRouterPath('api/v1/x', '/api/v1')).toEqual({ kind: 'malformed' });
  });
});
