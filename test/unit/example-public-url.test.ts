/**
 * Where the example servers' links point: the address their HTTP server actually bound (the port
 * the system chose for `PORT=0`, loopback for a wildcard host, IPv6 in brackets) unless
 * `MAILPLANE_PUBLIC_URL` says otherwise; and what the bound port answers before the application is
 * ready. Real sockets on loopback; test/e2e/public-url.test.ts follows the links of a real example.
 */
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { publicBaseUrl, readConfig } from '../../examples/shared/bootstrap.js';
import { bindHttp, localUrlOf, type BoundHttpServer } from '../../examples/shared/startup.js';

const bound: BoundHttpServer[] = [];
afterEach(async () => {
  for (const http of bound.splice(0)) await new Promise((resolve) => http.server.close(resolve));
});

const address = (host: string, port: number, family = host.includes(':') ? 'IPv6' : 'IPv4'): AddressInfo => ({
  address: host,
  port,
  family,
});

describe("the example servers' public base URL", () => {
  it('names the port bound for PORT=0, answers 503 STARTING until the application is served, then serves it', async () => {
    const http = await bindHttp({ host: '127.0.0.1', port: 0 });
    bound.push(http);
    const port = (http.server.address() as AddressInfo).port;
    expect(port).toBeGreaterThan(0);
    expect(http.localUrl).toBe(`http://127.0.0.1:${port}`);
    expect(publicBaseUrl(readConfig({ PORT: '0' }), http.localUrl)).toBe(`http://127.0.0.1:${port}`);

    const early = await fetch(`${http.localUrl}/api/v1/account/subaccount`);
    expect(early.status).toBe(503);
    expect(early.headers.get('retry-after')).toBe('1');
    expect(await early.json()).toEqual({ code: 'STARTING', message: 'the server is starting; try again in a moment' });

    http.serve((_request, response) => response.end('ready'));
    expect(await (await fetch(`${http.localUrl}/`)).text()).toBe('ready');
  });

  it('uses loopback for a wildcard host and brackets an IPv6 address', async () => {
    const http = await bindHttp({ host: '0.0.0.0', port: 0 });
    bound.push(http);
    expect(http.localUrl).toBe(`http://127.0.0.1:${(http.server.address() as AddressInfo).port}`);
    expect(localUrlOf(address('::', 4000))).toBe('http://[::1]:4000');
    expect(localUrlOf(address('::1', 4000))).toBe('http://[::1]:4000');
    expect(localUrlOf(address('192.0.2.7', 4000))).toBe('http://192.0.2.7:4000');
  });

  it('is MAILPLANE_PUBLIC_URL when the operator sets it, without a trailing slash', () => {
    expect(
      publicBaseUrl(
        readConfig({ PORT: '0', MAILPLANE_PUBLIC_URL: 'https://mail.example.com/' }),
        'http://127.0.0.1:41234',
      ),
    ).toBe('https://mail.example.com');
  });
});
