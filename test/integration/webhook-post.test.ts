/**
 * One webhook POST (src/webhook/post.ts) against real HTTP servers and a real DNS server on
 * loopback: what counts as success, redirects, oversized answers, and the address checks.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDnsResolver } from '../../src/dns/resolver.js';
import { postWebhook, type PostWebhookOptions } from '../../src/webhook/post.js';
import { verifyWebhookSignature } from '../../src/webhook/signature.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';

describe('a webhook POST', () => {
  let dns: TestDnsServer;
  let server: Server;
  let base: string;
  const hits: Array<{ path: string; signature: string; body: string }> = [];
  let options: PostWebhookOptions;

  beforeAll(async () => {
    dns = await startTestDnsServer();
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        hits.push({ path: req.url ?? '', signature: String(req.headers['x-mailplane-signature']), body: Buffer.concat(chunks).toString() });
        if (req.url === '/moved') return res.writeHead(302, { location: '/ok' }).end();
        if (req.url === '/huge') return res.writeHead(200).end(Buffer.alloc(1024 * 1024, 120));
        if (req.url === '/gone') return res.writeHead(410).end();
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    options = {
      resolver: createDnsResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 300, retries: 0 }),
      allowPrivateTargets: true,
      timeoutMs: 2000,
      nowMs: Date.UTC(2026, 10, 22),
      messageId: 'evt-1',
    };
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await dns.close();
  });

  it('succeeds on 2xx, with the body signed for the attempt time', async () => {
    expect(await postWebhook(`${base}/ok`, '{"a":1}', ['whsec_test'], options)).toEqual({ ok: true, status: 204 });
    const hit = hits.at(-1)!;
    expect(hit.body).toBe('{"a":1}');
    expect(verifyWebhookSignature('whsec_test', hit.signature, hit.body, 300, options.nowMs / 1000).ok).toBe(true);
  });

  it('does not follow a redirect, and retries it and any other non-2xx', async () => {
    const before = hits.length;
    expect(await postWebhook(`${base}/moved`, '{}', ['whsec_test'], options)).toMatchObject({ ok: false, retry: true, status: 302 });
    expect(hits.slice(before).map((h) => h.path)).toEqual(['/moved']);
    expect(await postWebhook(`${base}/gone`, '{}', ['whsec_test'], options)).toMatchObject({ ok: false, retry: true, status: 410, error: 'HTTP 410' });
  });

  it('settles an oversized answer by its status without reading it all', async () => {
    expect(await postWebhook(`${base}/huge`, '{}', ['whsec_test'], options)).toEqual({ ok: true, status: 200 });
  });

  it('refuses private and reserved literal targets unless allowed, without a connection', async () => {
    const strict = { ...options, allowPrivateTargets: false };
    const before = hits.length;
    for (const url of [`${base}/ok`, 'http://[::1]/x', 'http://169.254.169.254/latest', 'http://10.0.0.8/x', 'http://2130706433/x']) {
      expect(await postWebhook(url, '{}', ['whsec_test'], strict)).toMatchObject({ ok: false, retry: false, error: expect.stringMatching(/^target refused/) });
    }
    expect(hits.length).toBe(before);
  });

  it('checks every address a name resolves to, and connects to the checked one', async () => {
    const port = new URL(base).port;
    dns.set('hooks.example.test', 'A', ['127.0.0.1']);
    dns.set('mixed.example.test', 'A', ['93.184.216.34', '127.0.0.1']);
    expect(await postWebhook(`http://hooks.example.test:${port}/ok`, '{}', ['whsec_test'], options)).toEqual({ ok: true, status: 204 });
    const strict = { ...options, allowPrivateTargets: false };
    expect(await postWebhook(`http://mixed.example.test:${port}/ok`, '{}', ['whsec_test'], strict)).toMatchObject({
      ok: false,
      retry: false,
      error: 'target refused: mixed.example.test resolves to loopback address 127.0.0.1',
    });
  });

  it('retries a name that does not resolve', async () => {
    expect(await postWebhook('http://nowhere.example.test/x', '{}', ['whsec_test'], options)).toMatchObject({ ok: false, retry: true, error: expect.stringMatching(/^DNS: nowhere.example.test has no address/) });
  });
});
