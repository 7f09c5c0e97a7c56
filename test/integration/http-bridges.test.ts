/**
 * The three bridges (node:http, Express, Koa) on real servers: a text answer goes out as UTF-8, and
 * a binary one (`bodyEncoding: 'base64'`, the open-tracking GIF) as its bytes.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { toExpress } from '../../adapters/http/express/index.js';
import { toKoa } from '../../adapters/http/koa/index.js';
import { toNodeHandler } from '../../adapters/http/node/index.js';
import type { HttpHandler } from '../../src/http/types.js';

const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

const handler: HttpHandler = async (request) =>
  request.path === '/pixel'
    ? { status: 200, headers: { 'content-type': 'image/gif' }, body: GIF.toString('base64'), bodyEncoding: 'base64' }
    : { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'grüße ✓' };

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function serve(listener: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/t`;
}

describe.each([
  ['node:http', () => toNodeHandler(handler, { prefix: '/t' })],
  ['Express', () => express().use('/t', toExpress(handler))],
  ['Koa', () => new Koa().use(toKoa(handler, { prefix: '/t' })).callback()],
] as const)('the %s bridge', (_name, listener) => {
  it('writes text as UTF-8 and a base64 body as its bytes', async () => {
    const base = await serve(listener() as Parameters<typeof createServer>[1]);
    const pixel = await fetch(`${base}/pixel`);
    expect(pixel.headers.get('content-type')).toBe('image/gif');
    expect(Buffer.from(await pixel.arrayBuffer()).equals(GIF)).toBe(true);
    expect(await (await fetch(`${base}/text`)).text()).toBe('grüße ✓');
  });
});
