/**
 * The typed client's retries against a real instance on SQLite and PostgreSQL, served over HTTP on
 * 127.0.0.1: the rate limiter's real `429` with `Retry-After` (the instance's clock is the machine's,
 * shifted so that its minute ends a few seconds after the test starts, which keeps the wait short),
 * and `503` answers from an HTTP server of the test's own in front of the instance.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailplaneClient, type MailplaneApiError, type RetryEvent } from 'mailplane/client';
import { apiFailure } from '../support/api-failure.js';
import { useTestApi } from '../support/api.js';
import { startBridgeServer, type BridgeServer } from '../support/bridge-server.js';
import { storeKinds } from '../support/databases.js';

/** What the gate answers for one request: `null` lets it through to the instance. */
type Refusal = { status: number; headers: Record<string, string> } | null;

/** An HTTP server that refuses requests as `decide` says and forwards the others to `target`. */
async function startGate(target: string, decide: (request: IncomingMessage, seen: number) => Refusal) {
  const seen: string[] = [];
  const server: Server = createServer(async (request, response) => {
    seen.push(`${request.method} ${request.url}`);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const refusal = decide(request, seen.length);
    if (refusal) {
      response.writeHead(refusal.status, { 'content-type': 'application/json', ...refusal.headers });
      response.end(JSON.stringify({ code: 'SERVICE_UNAVAILABLE', message: 'the storage is unavailable; retry later' }));
      return;
    }
    const headers = Object.entries(request.headers).filter(([name]) => !['host', 'connection'].includes(name));
    const answer = await fetch(`${target}${request.url}`, {
      method: request.method,
      headers: headers as [string, string][],
      body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
    });
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each(storeKinds)('the typed client retrying on %s', (kind) => {
  // The machine's clock, moved by `offsetMs`: the rate limiter's minute ends when the test wants it to.
  const clock = { offsetMs: 0, now: () => Date.now() + clock.offsetMs };
  /** Moves the instance's clock to `secondOfMinute` (e.g. 57.5) of its current minute. */
  const moveClockTo = (secondOfMinute: number) => {
    clock.offsetMs = (((secondOfMinute * 1000 - (Date.now() % 60_000)) % 60_000) + 60_000) % 60_000;
  };
  const api = useTestApi(kind, { clock, rateLimits: { requestsPerMinute: 2 } }, { scope: 'describe' });
  let bridge: BridgeServer;
  let baseUrl: string;

  beforeAll(async () => {
    bridge = await startBridgeServer('node', api);
    baseUrl = `http://127.0.0.1:${bridge.port}/api/v1`;
    await api.createSubAccount('Acme');
  });
  afterAll(async () => {
    await bridge?.close();
    await api.mailplane.close();
  });

  it("waits out the rate limiter's Retry-After and then gets its answer", async () => {
    moveClockTo(57.5);
    const retries: RetryEvent[] = [];
    const client = createMailplaneClient({
      baseUrl,
      accountApiKey: api.accountKey,
      retry: { maxDelayMs: 10_000, onRetry: (retry) => retries.push(retry) },
    });
    const noRetry = createMailplaneClient({ baseUrl, accountApiKey: api.accountKey, retry: false });
    // Use up the allowance of this minute (2 requests), so that the next request is refused.
    for (let i = 0; i < 3; i++) await noRetry.GET('/account/subaccount').catch(() => {});
    const refused = await apiFailure(noRetry.GET('/account/subaccount'));
    expect(refused).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(refused.retryAfterMs).toBeGreaterThanOrEqual(1000);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(3000);

    const started = Date.now();
    const { data, response } = await client.GET('/account/subaccount');
    expect(response.status).toBe(200);
    expect(data.map((s) => s.name)).toContain('Acme');
    expect(retries).toEqual([expect.objectContaining({ attempt: 1, status: 429, method: 'GET' })]);
    // It waited what the server asked (whole seconds until its minute ends), not less.
    expect([1000, 2000, 3000]).toContain(retries[0]!.delayMs);
    expect(Date.now() - started).toBeGreaterThanOrEqual(retries[0]!.delayMs - 50);
  });

  it('does not wait longer than its cap: a Retry-After beyond it is thrown at once', async () => {
    moveClockTo(10);
    const retries: RetryEvent[] = [];
    const client = createMailplaneClient({
      baseUrl,
      accountApiKey: api.accountKey,
      retry: { maxDelayMs: 5_000, onRetry: (retry) => retries.push(retry) },
    });
    let refused: unknown;
    for (let i = 0; i < 3 && !refused; i++)
      refused = await client.GET('/account/subaccount').then(
        () => undefined,
        (e) => e,
      );
    expect(refused).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect((refused as MailplaneApiError).retryAfterMs).toBeGreaterThan(5_000);
    expect(retries).toEqual([]);
  });

  describe('behind a server answering 503 with Retry-After', () => {
    const noLimits = { rateLimits: false as const };
    const open = useTestApi(kind, noLimits, { scope: 'describe' });
    let openBridge: BridgeServer;
    let target: string;
    let key: string;
    beforeAll(async () => {
      openBridge = await startBridgeServer('node', open);
      target = `http://127.0.0.1:${openBridge.port}`;
      key = (await open.createSubAccount('Acme')).apiKey;
    });
    afterAll(async () => {
      await openBridge?.close();
      await open.mailplane.close();
    });
    const once = (headers: Record<string, string>) => (_: IncomingMessage, seen: number) =>
      seen === 1 ? { status: 503, headers } : null;

    it('retries a read after the seconds it was told', async () => {
      const gate = await startGate(target, once({ 'retry-after': '1' }));
      try {
        const retries: RetryEvent[] = [];
        const client = createMailplaneClient({
          baseUrl: gate.baseUrl,
          accountApiKey: open.accountKey,
          retry: { onRetry: (retry) => retries.push(retry) },
        });
        const started = Date.now();
        const { data } = await client.GET('/account/subaccount');
        expect(data.map((s) => s.name)).toContain('Acme');
        expect(Date.now() - started).toBeGreaterThanOrEqual(950);
        expect(retries).toEqual([expect.objectContaining({ status: 503, delayMs: 1000 })]);
        expect(gate.seen).toEqual(['GET /api/v1/account/subaccount', 'GET /api/v1/account/subaccount']);
      } finally {
        await gate.close();
      }
    });

    it('retries a send with its Idempotency-Key and body, reading Retry-After as an HTTP date', async () => {
      const gate = await startGate(target, once({ 'retry-after': new Date(Date.now() + 3000).toUTCString() }));
      try {
        const retries: RetryEvent[] = [];
        const client = createMailplaneClient({
          baseUrl: gate.baseUrl,
          subAccountApiKey: key,
          retry: { onRetry: (retry) => retries.push(retry) },
        });
        const sent = await client.sendEmail({
          from: { email: 'hello@acme.test' },
          to: [{ email: 'ada@example.com' }],
          subject: 'Retried',
          textBody: 'Hello',
        });
        expect(sent.data).toHaveLength(1);
        expect(retries).toHaveLength(1);
        // The date has whole seconds: 2 to 3 s from now, far above the 0.5 s the client waits when told nothing.
        expect(retries[0]!.delayMs).toBeGreaterThan(1500);
        expect(retries[0]!.delayMs).toBeLessThanOrEqual(3000);
        expect(gate.seen).toEqual(['POST /api/v1/subaccount/email', 'POST /api/v1/subaccount/email']);
        const messages = await open.call('GET', '/subaccount/message', { sub: key });
        expect(messages.body.items.map((m: { subject: string }) => m.subject)).toEqual(['Retried']);
      } finally {
        await gate.close();
      }
    });

    it('does not send again a write without an Idempotency-Key: the 503 is thrown with its wait', async () => {
      const gate = await startGate(target, once({ 'retry-after': '1' }));
      try {
        const client = createMailplaneClient({ baseUrl: gate.baseUrl, accountApiKey: open.accountKey });
        const error = await apiFailure(client.POST('/account/subaccount', { body: { name: 'Hooli' } }));
        expect(error).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', retryAfterMs: 1000 });
        expect(gate.seen).toEqual(['POST /api/v1/account/subaccount']);
      } finally {
        await gate.close();
      }
    });

    it('refuses to follow a redirect, so the key never reaches another server', async () => {
      const elsewhere = await startGate(target, () => null);
      const gate = await startGate(target, () => ({
        status: 307,
        headers: { location: `${elsewhere.baseUrl}/account/subaccount` },
      }));
      try {
        const client = createMailplaneClient({ baseUrl: gate.baseUrl, accountApiKey: open.accountKey });
        await expect(client.GET('/account/subaccount')).rejects.toThrow(TypeError);
        expect(gate.seen).toHaveLength(1);
        expect(elsewhere.seen).toEqual([]);
      } finally {
        await gate.close();
        await elsewhere.close();
      }
    });

    it('gives up after its bounded number of retries', async () => {
      const gate = await startGate(target, () => ({ status: 503, headers: { 'retry-after': '0' } }));
      try {
        const client = createMailplaneClient({
          baseUrl: gate.baseUrl,
          accountApiKey: open.accountKey,
          retry: { retries: 2 },
        });
        const error = await apiFailure(client.GET('/account/subaccount'));
        expect(error).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
        expect(gate.seen).toHaveLength(3);
      } finally {
        await gate.close();
      }
    });
  });
});
