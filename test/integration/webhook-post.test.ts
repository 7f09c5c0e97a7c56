/**
 * One webhook POST (src/webhook/post.ts) against real HTTP servers and a real DNS server on
 * loopback: what counts as success, redirects, oversized answers, the address checks, and the
 * deadlines of each step (connection, headers, body) against receivers that stall or drip.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDnsResolver } from '../../src/dns/resolver.js';
import { postWebhook, WebhookAgents, type PostWebhookOptions } from '../../src/webhook/post.js';
import { verifyWebhookSignature } from '../../src/webhook/signature.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startSilentServer, startWebhookReceiver } from '../support/webhook-receiver.js';

describe('a webhook POST', () => {
  let dns: TestDnsServer;
  let server: Server;
  let base: string;
  const hits: Array<{ path: string; signature: string; body: string }> = [];
  let options: PostWebhookOptions;
  const agents = new WebhookAgents();

  beforeAll(async () => {
    dns = await startTestDnsServer();
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        hits.push({
          path: req.url ?? '',
          signature: String(req.headers['x-mailplane-signature']),
          body: Buffer.concat(chunks).toString(),
        });
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
      agents,
      timeoutMs: 2000,
      connectTimeoutMs: 2000,
      bodyTimeoutMs: 2000,
      nowMs: Date.UTC(2026, 10, 22),
      messageId: 'evt-1',
    };
  });
  afterAll(async () => {
    agents.close();
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
    expect(await postWebhook(`${base}/moved`, '{}', ['whsec_test'], options)).toMatchObject({
      ok: false,
      retry: true,
      status: 302,
    });
    expect(hits.slice(before).map((h) => h.path)).toEqual(['/moved']);
    expect(await postWebhook(`${base}/gone`, '{}', ['whsec_test'], options)).toMatchObject({
      ok: false,
      retry: true,
      status: 410,
      error: 'HTTP 410',
    });
  });

  it('settles an oversized answer by its status without reading it all', async () => {
    expect(await postWebhook(`${base}/huge`, '{}', ['whsec_test'], options)).toEqual({ ok: true, status: 200 });
  });

  it('refuses private and reserved literal targets unless allowed, without a connection', async () => {
    const strict = { ...options, allowPrivateTargets: false };
    const before = hits.length;
    for (const url of [
      `${base}/ok`,
      'http://[::1]/x',
      'http://169.254.169.254/latest',
      'http://10.0.0.8/x',
      'http://2130706433/x',
    ]) {
      expect(await postWebhook(url, '{}', ['whsec_test'], strict)).toMatchObject({
        ok: false,
        retry: false,
        error: expect.stringMatching(/^target refused/),
      });
    }
    expect(hits.length).toBe(before);
  });

  it('checks every address a name resolves to, and connects to the checked one', async () => {
    const port = new URL(base).port;
    dns.set('hooks.example.test', 'A', ['127.0.0.1']);
    dns.set('mixed.example.test', 'A', ['93.184.216.34', '127.0.0.1']);
    expect(await postWebhook(`http://hooks.example.test:${port}/ok`, '{}', ['whsec_test'], options)).toEqual({
      ok: true,
      status: 204,
    });
    const strict = { ...options, allowPrivateTargets: false };
    expect(await postWebhook(`http://mixed.example.test:${port}/ok`, '{}', ['whsec_test'], strict)).toMatchObject({
      ok: false,
      retry: false,
      error: 'target refused: mixed.example.test resolves to loopback address 127.0.0.1',
    });
  });

  it('retries a name that does not resolve', async () => {
    expect(await postWebhook('http://nowhere.example.test/x', '{}', ['whsec_test'], options)).toMatchObject({
      ok: false,
      retry: true,
      error: expect.stringMatching(/^DNS: nowhere.example.test has no address/),
    });
  });

  it('gives up on a connection not ready within connectTimeoutMs: a TLS handshake never answered', async () => {
    const silent = await startSilentServer();
    try {
      const started = performance.now();
      const result = await postWebhook(`https://127.0.0.1:${silent.port}/hook`, '{}', ['whsec_test'], {
        ...options,
        connectTimeoutMs: 300,
        timeoutMs: 10_000,
      });
      expect(result).toEqual({ ok: false, retry: true, error: 'no connection within 300 ms' });
      expect(silent.accepted()).toBe(1);
      // About 300 ms; well before the 10 s allowed for the headers, which it waited for when the
      // connect deadline was not kept.
      expect(performance.now() - started).toBeLessThan(5000);
    } finally {
      await silent.close();
    }
  });

  it('gives up on headers not received within timeoutMs: a connection accepted and never answered', async () => {
    const silent = await startSilentServer();
    try {
      const started = performance.now();
      const result = await postWebhook(`http://127.0.0.1:${silent.port}/hook`, '{}', ['whsec_test'], {
        ...options,
        connectTimeoutMs: 300,
        timeoutMs: 600,
      });
      expect(result).toEqual({ ok: false, retry: true, error: 'no response within 600 ms' });
      // About 600 ms; without the deadline it waits for an answer that never comes.
      expect(performance.now() - started).toBeLessThan(10_000);
    } finally {
      await silent.close();
    }
  });

  it('counts a 200 whose body drips as delivered at once, and cuts the body off after bodyTimeoutMs', async () => {
    const receiver = await startWebhookReceiver();
    try {
      receiver.answer('drip');
      const started = performance.now();
      const result = await postWebhook(receiver.url, '{}', ['whsec_test'], {
        ...options,
        timeoutMs: 10_000,
        bodyTimeoutMs: 300,
      });
      // Decided by the status line, long before the 10 s timeout or the hour the body would take.
      expect(result).toEqual({ ok: true, status: 200 });
      expect(performance.now() - started).toBeLessThan(5000);
      expect(receiver.received).toHaveLength(1);
      // The connection still dripping is destroyed, not kept: the receiver sees it closed.
      await vi.waitFor(() => expect(receiver.connections()).toEqual({ accepted: 1, open: 0 }), {
        timeout: 10_000,
        interval: 20,
      });
    } finally {
      await receiver.close();
    }
  });

  it('keeps a connection whose answer ended for the next POST, and close() destroys it', async () => {
    const receiver = await startWebhookReceiver();
    const own = new WebhookAgents();
    try {
      for (let i = 0; i < 3; i++)
        expect(await postWebhook(receiver.url, '{}', ['whsec_test'], { ...options, agents: own })).toEqual({
          ok: true,
          status: 200,
        });
      expect(receiver.connections()).toEqual({ accepted: 1, open: 1 });
      own.close();
      await vi.waitFor(() => expect(receiver.connections().open).toBe(0), { timeout: 10_000, interval: 20 });
    } finally {
      own.close();
      await receiver.close();
    }
  });
});
