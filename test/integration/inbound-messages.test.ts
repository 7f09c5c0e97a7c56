/**
 * The received messages through the API (docs/inbound.md, "Received messages"), on the inbound bench
 * (test/support/inbound.ts): a real listener on loopback, a real webhook receiver, real SQLite and
 * PostgreSQL. The list pages, searches and filters by route; a message shows everything but its
 * raw copy, which has its own endpoint (410 when it was too large to keep); redelivery posts a
 * failed message again, and is refused with a code when the raw copy or the route is gone.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BRIDGES, startBridgeServer } from '../support/bridge-server.js';
import { storeKinds } from '../support/databases.js';
import { REMOTE_DOMAIN, startInboundEnv, type InboundEnv } from '../support/inbound.js';

/** The listener keeps raw copies up to this size here, so a message with a 4 KB body is not kept. */
const MAX_STORED_RAW_BYTES = 3000;

describe.each(storeKinds)('/subaccount/inbound/message (%s)', (kind) => {
  let bench: InboundEnv;
  beforeEach(async () => {
    bench = await startInboundEnv(kind, { maxStoredRawBytes: MAX_STORED_RAW_BYTES }, { retryDelaysMs: [] });
  });
  afterEach(async () => {
    await bench?.close();
  });

  const call = (method: string, path: string, query?: Record<string, string | number>) =>
    bench.env.api.call(method, `/subaccount/inbound/message${path}`, { sub: bench.env.key, ...(query && { query }) });
  const statusOf = async (id: string) => (await call('GET', `/${id}`)).body.status as string;

  it('lists newest first with paging, search and a route filter, and shows one without its raw copy', async () => {
    const support = await bench.route(`support@${bench.domain}`, 'store');
    const sales = await bench.route(`sales@${bench.domain}`, 'store');
    for (const [to, subject] of [
      ['support', 'Broken widget'],
      ['sales', 'Bulk order'],
      ['support', 'Invoice question'],
    ])
      await bench.submit({ to: `${to}@${bench.domain}`, subject, text: 'hello' });

    const all = await call('GET', '');
    expect(all.status).toBe(200);
    expect(all.body.map((m: { subject: string }) => m.subject)).toEqual([
      'Invoice question',
      'Bulk order',
      'Broken widget',
    ]);
    expect((await call('GET', '', { limit: 1, offset: 1 })).body.map((m: { subject: string }) => m.subject)).toEqual([
      'Bulk order',
    ]);
    expect((await call('GET', '', { search: 'INVOICE' })).body).toHaveLength(1);
    expect((await call('GET', '', { routeId: sales.id })).body.map((m: { routeId: number }) => m.routeId)).toEqual([
      sales.id,
    ]);
    expect((await call('GET', '', { routeId: support.id })).body).toHaveLength(2);
    expect((await call('GET', '', { routeId: 'x' })).status).toBe(422);

    const shown = await call('GET', `/${all.body[0].id}`);
    expect(shown.body).toEqual({
      id: all.body[0].id,
      envelope: { mailFrom: `alice@${REMOTE_DOMAIN}`, rcptTo: `support@${bench.domain}` },
      from: `alice@${REMOTE_DOMAIN}`,
      subject: 'Invoice question',
      messageIdHeader: expect.any(String),
      inReplyToMessageId: null,
      routeId: support.id,
      status: 'stored',
      detail: '',
      auth: { spf: 'pass', dkim: 'pass', dmarc: 'pass', arc: 'none' },
      size: expect.any(Number),
      receivedAt: expect.any(Number),
      updated: expect.any(Number),
      rawKept: true,
      subAccountId: bench.env.sender.subAccount.id,
      route: { id: support.id, pattern: `support@${bench.domain}` },
    });
    const unknown = await call('GET', '/0190f3a2-0000-7000-8000-000000000000');
    expect(unknown.status).toBe(406);
    expect(unknown.body.code).toBe('INBOUND_MESSAGE_NOT_FOUND');
  });

  it('answers the raw copy as message/rfc822, byte for byte, and 410 when it was too large to keep', async () => {
    await bench.route(`support@${bench.domain}`, 'store');
    // 8-bit text in no declared charset: the answer must carry the bytes, not a re-encoding of them.
    const latin = Buffer.from('Subject: Caf\xe9\r\n\r\nun caf\xe9\r\n', 'latin1');
    const raw = Buffer.concat([Buffer.from(`From: alice@${REMOTE_DOMAIN}\r\nTo: support@${bench.domain}\r\n`), latin]);
    await bench.submit(
      { envelope: { from: `alice@${REMOTE_DOMAIN}`, to: [`support@${bench.domain}`] }, raw },
      { dkim: false },
    );
    await bench.submit({ to: `support@${bench.domain}`, subject: 'Long', text: 'x'.repeat(4000) });
    const [long, small] = (await call('GET', '')).body as Array<{ id: string; rawKept: boolean }>;

    // Through each bridge, as the examples serve the API: the body is the kept bytes exactly.
    for (const bridge of BRIDGES) {
      const server = await startBridgeServer(bridge, bench.env.api);
      try {
        const url = `http://127.0.0.1:${server.port}/api/v1/subaccount/inbound/message/${small!.id}/raw`;
        const answer = await fetch(url, { headers: { 'x-subaccount-apikey': bench.env.key } });
        expect(answer.status, bridge).toBe(200);
        expect(answer.headers.get('content-type'), bridge).toBe('message/rfc822');
        const bytes = Buffer.from(await answer.arrayBuffer());
        expect(bytes.includes(latin), bridge).toBe(true);
        expect(bytes.length, bridge).toBe((await call('GET', `/${small!.id}`)).body.size);
      } finally {
        await server.close();
      }
    }

    expect(long!.rawKept).toBe(false);
    const gone = await call('GET', `/${long!.id}/raw`);
    expect(gone.status).toBe(410);
    expect(gone.body.code).toBe('INBOUND_RAW_NOT_KEPT');
    const again = await call('POST', `/${long!.id}/redeliver`);
    expect(again.status).toBe(410);
    expect(again.body.code).toBe('INBOUND_RAW_NOT_KEPT');
  });

  it('posts a failed message again from its raw copy, and refuses when its route is deleted or refuses', async () => {
    const route = await bench.route(`support@${bench.domain}`, 'webhook');
    bench.hook.answer(500);
    await bench.submit({ to: `support@${bench.domain}`, subject: 'Help', text: 'please' });
    const [first] = (await call('GET', '')).body as Array<{ id: string }>;
    // No retries on this bench: the 500 ends it failed.
    await vi.waitFor(async () => expect(await statusOf(first!.id)).toBe('failed'), { timeout: 15_000 });

    const redelivered = await call('POST', `/${first!.id}/redeliver`);
    expect(redelivered.status).toBe(200);
    expect(redelivered.body).toMatchObject({ id: first!.id, status: 'pending', detail: '' });
    await vi.waitFor(async () => expect(await statusOf(first!.id)).toBe('posted'), { timeout: 15_000 });
    expect(bench.hook.received).toHaveLength(2);
    // The same payload, made again from the kept raw copy.
    expect(bench.hook.received[1]!.json).toEqual(bench.hook.received[0]!.json);
    expect(bench.hook.received[1]!.headers['webhook-id']).toBe(first!.id);

    const ctx = { sub: bench.env.key };
    await bench.env.api.call('PUT', `/subaccount/route/${route.id}`, { ...ctx, body: { action: 'refuse', url: null } });
    const refuses = await call('POST', `/${first!.id}/redeliver`);
    expect(refuses.status).toBe(422);
    expect(refuses.body.code).toBe('INBOUND_ROUTE_REFUSES');

    await bench.env.api.call('DELETE', `/subaccount/route/${route.id}`, ctx);
    const deleted = await call('POST', `/${first!.id}/redeliver`);
    expect(deleted.status).toBe(422);
    expect(deleted.body.code).toBe('INBOUND_ROUTE_DELETED');
    expect(await statusOf(first!.id)).toBe('posted');
    expect(bench.hook.received).toHaveLength(2);
  });
});
