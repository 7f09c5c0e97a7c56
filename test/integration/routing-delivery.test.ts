/**
 * Routing applied at delivery, end to end on real sockets: IPs allocated and pools created through
 * the API, sends naming a pool, the job runner delivering from the chosen source address to a
 * loopback sink (which records the client's address), TPSPs relaying through an authenticating
 * smtp-server, and the message resource naming the IP, pool or TPSP that sent it.
 */
import { SMTPServer } from 'smtp-server';
import { contextOf } from '../../src/instance-context.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { manualClock, type Logger } from 'mailplane';
import { mxTransport, smartHostTransport } from '../../adapters/transport/smtp/index.js';
import { ROUTING_WAIT_MS } from '../../src/delivery/route.js';
import { useTestApi } from '../support/api.js';
import { storeKinds } from '../support/databases.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { schemaErrors } from '../support/openapi.js';
import { createSender, sendBody, type Sender } from '../support/sending.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the JSON shape
type Json = any;

const T0 = Date.UTC(2026, 4, 1, 12);
const list = (...entities: string[]) => JSON.stringify(entities);

describe.each(storeKinds)('routing at delivery (%s)', (kind) => {
  let dns: TestDnsServer;
  let sink: SmtpSink;
  let sender: Sender;
  let clock: ReturnType<typeof manualClock>;
  let logged: Array<{ message: string; fields?: Record<string, unknown> }>;

  beforeEach(async () => {
    dns = await startTestDnsServer();
    sink = await startSmtpSink();
  });
  afterEach(async () => {
    await sink.close();
    await dns.close();
  });
  const api = useTestApi(kind, () => {
    clock = manualClock(T0);
    logged = [];
    const logger: Logger = {
      info: (message, fields) => logged.push({ message, ...(fields && { fields }) }),
      warn: (message, fields) => logged.push({ message, ...(fields && { fields }) }),
      error: (message, fields) => logged.push({ message, ...(fields && { fields }) }),
    };
    return {
      clock,
      logger,
      dns: { servers: [{ host: dns.host, port: dns.port }], timeoutMs: 5_000, retries: 1 },
      delivery: { mxPort: sink.port, socketTimeoutMs: 2000, greetingTimeoutMs: 2000, connectionTimeoutMs: 2000 },
      jobs: { pollIntervalMs: 25 },
      // The manual clock stands still, so the default table's Gmail rate would hold gw.test's mail
      // for good: routing is tested without it (traffic shaping has tests of its own).
      shaping: { defaultRules: false },
      transport: (ctx) =>
        mxTransport({ resolver: ctx.resolver, port: ctx.delivery.mxPort, ehloName: 'mta.mailplane.test' }),
      tpspTransport: (t) =>
        smartHostTransport({
          host: t.host,
          port: t.port,
          secure: t.security === 'tls',
          requireTLS: t.security === 'starttls',
          rejectUnauthorized: false,
          ...(t.username !== '' && { auth: { user: t.username, pass: t.password } }),
        }),
    };
  });
  beforeEach(async () => {
    sender = await createSender(api, 'routing', 'sender.test');
    dns.set('rcpt.test', 'MX', [{ exchange: 'mx.rcpt.test', preference: 10 }]);
    dns.set('mx.rcpt.test', 'A', ['127.0.0.1']);
    api.mailplane.start();
  });

  const account = () => ({ account: api.accountKey });
  async function allocate(...addresses: string[]): Promise<Json[]> {
    const result = await api.call('PUT', '/account/ip/allocate', { ...account(), body: { ips: addresses } });
    expect(result.status, result.text).toBe(200);
    return result.body.allocated;
  }
  async function createPool(body: Json): Promise<Json> {
    const result = await api.call('POST', '/account/ippool', { ...account(), body });
    expect(result.status, result.text).toBe(200);
    return result.body;
  }
  async function send(
    to: string[],
    extra: Json = {},
    from = `news@${sender.domain.name}`,
    key = sender.subAccount.apiKey,
  ): Promise<string[]> {
    const result = await api.call('POST', '/subaccount/email', { sub: key, body: sendBody(from, to, extra) });
    expect(result.status, result.text).toBe(200);
    return result.body.map((e: Json) => e.messageId);
  }
  const message = async (id: string): Promise<Json> =>
    (await api.call('GET', `/account/message/${id}`, account())).body;
  async function delivered(ids: string[]): Promise<Json[]> {
    const views: Json[] = [];
    for (const id of ids) {
      await vi.waitFor(
        async () => {
          const view = await message(id);
          expect(view.status).toBe('delivered');
          views.push(view);
        },
        { timeout: 15_000, interval: 20 },
      );
    }
    return views;
  }
  /** Received messages per client source address. */
  const bySource = () => {
    const counts: Record<string, number> = {};
    for (const m of sink.received) counts[m.remoteAddress] = (counts[m.remoteAddress] ?? 0) + 1;
    return counts;
  };
  const sourceOf = (id: string) => sink.received.find((m) => m.mailFrom.includes(id))?.remoteAddress;

  it('strategy 2 splits 20 deliveries 4/6/2/8 over IPs weighted 2, 3, 1, 4, and the message names its IP and pool', async () => {
    const [a, b, c, d] = await allocate('127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5');
    const weights = { [`IP_${a.id}`]: '2', [`IP_${b.id}`]: '3', [`IP_${c.id}`]: '1', [`IP_${d.id}`]: '4' };
    const pool = await createPool({
      name: 'Weighted',
      ips: [a, b, c, d].map((ip) => ({ publicIP: ip.publicIp })),
      routingStrategy: 2,
      routingMetaData: JSON.stringify(weights),
    });
    const ids = await send(
      Array.from({ length: 20 }, (_, i) => `r${i}@rcpt.test`),
      { ippool: 'weighted' },
    );
    const views = await delivered(ids);
    expect(bySource()).toEqual({ '127.0.0.2': 4, '127.0.0.3': 6, '127.0.0.4': 2, '127.0.0.5': 8 });

    const ipIdByAddress = new Map([a, b, c, d].map((ip) => [ip.publicIp, ip.id]));
    for (const view of views) {
      expect(schemaErrors('Message', view)).toEqual([]);
      expect(view.ipID).toBe(ipIdByAddress.get(sourceOf(view.messageID)!));
      expect(view.accountIPPoolID).toBe(pool.id);
      const deliveredEvent = view.events.find((e: Json) => e.type === 2);
      expect(deliveredEvent).toMatchObject({ ipID: view.ipID, ipPoolID: pool.id });
      expect(deliveredEvent.tpspId).toBeUndefined();
    }
  });

  it('strategy 0 takes the IPs in turn; a sub-account default pool applies when the send names none', async () => {
    const [a, b] = await allocate('127.0.0.2', '127.0.0.3');
    const pool = await createPool({
      name: 'Even',
      ips: [{ publicIP: a.publicIp }, { publicIP: b.publicIp }],
      routingStrategy: 0,
      routingMetaData: '{}',
    });
    // The API has no field for it (yet): set in storage as an operator tool would.
    await contextOf(api.mailplane).store.subAccounts.update(sender.subAccount.accountId, sender.subAccount.id, {
      defaultIpPoolId: pool.id,
      updated: 2n,
    });
    const ids = await send(Array.from({ length: 10 }, (_, i) => `r${i}@rcpt.test`));
    const views = await delivered(ids);
    expect(bySource()).toEqual({ '127.0.0.2': 5, '127.0.0.3': 5 });
    expect(new Set(views.map((v) => v.events.find((e: Json) => e.type === 2).ipPoolID))).toEqual(new Set([pool.id]));
  });

  it('without a pool, mail leaves the Shared pool from the host default address', async () => {
    const [id] = await send(['solo@rcpt.test']);
    const [view] = await delivered([id!]);
    expect(sink.received[0]!.remoteAddress).toBe('127.0.0.1');
    expect(sink.received[0]!.ehlo).toBe('mta.mailplane.test');
    expect(view.ipID).toBeUndefined();
    const shared = (await api.call('GET', '/account/ippool', { ...account(), query: { limit: 10 } })).body.find(
      (p: Json) => p.name === 'Shared',
    );
    expect(view.events.find((e: Json) => e.type === 2).ipPoolID).toBe(shared.id);
  });

  it('strategy 3 routes by the From domain, and an IP greets with its reverse-DNS name', async () => {
    const [a, b] = await allocate('127.0.0.2', '127.0.0.3');
    await api.call('PUT', `/account/ip/${a.id}`, { ...account(), body: { reverseDnsHostname: 'mta2.sender.test' } });
    const other = await createSender(api, 'other', 'other.test');
    await createPool({
      name: 'ByDomain',
      ips: [{ publicIP: a.publicIp }, { publicIP: b.publicIp }],
      routingStrategy: 3,
      routingMetaData: JSON.stringify({ 'sender.test': list(`IP_${a.id}`), others: list(`IP_${b.id}`) }),
    });
    const mine = await send(['x1@rcpt.test', 'x2@rcpt.test'], { ippool: 'ByDomain' });
    const theirs = await send(['y1@rcpt.test'], { ippool: 'ByDomain' }, 'news@other.test', other.subAccount.apiKey);
    await delivered([...mine, ...theirs]);
    expect(mine.map(sourceOf)).toEqual(['127.0.0.2', '127.0.0.2']);
    expect(theirs.map(sourceOf)).toEqual(['127.0.0.3']);
    expect(sink.received.find((m) => m.remoteAddress === '127.0.0.2')!.ehlo).toBe('mta2.sender.test');
    expect(sink.received.find((m) => m.remoteAddress === '127.0.0.3')!.ehlo).toBe('mta.mailplane.test');
  });

  it('strategy 1 sends a custom domain whose MX is Google Workspace through the Gmail key', async () => {
    const [a, b] = await allocate('127.0.0.2', '127.0.0.3');
    dns.set('acme.test', 'MX', [{ exchange: 'aspmx.l.google.com', preference: 1 }]);
    dns.set('aspmx.l.google.com', 'A', ['127.0.0.1']);
    await createPool({
      name: 'ByProvider',
      ips: [{ publicIP: a.publicIp }, { publicIP: b.publicIp }],
      routingStrategy: 1,
      routingMetaData: JSON.stringify({ '0': list(`IP_${a.id}`), others: list(`IP_${b.id}`) }),
    });
    const workspace = await send(['ceo@acme.test', 'cfo@acme.test'], { ippool: 'ByProvider' });
    const plain = await send(['someone@rcpt.test'], { ippool: 'ByProvider' });
    await delivered([...workspace, ...plain]);
    expect(workspace.map(sourceOf)).toEqual(['127.0.0.2', '127.0.0.2']);
    expect(plain.map(sourceOf)).toEqual(['127.0.0.3']);
  });

  it("overflows to the next pool when the pool's IPs are paused, and waits (no bounce) when the chain has none", async () => {
    const [a, b] = await allocate('127.0.0.2', '127.0.0.3');
    const second = await createPool({
      name: 'Second',
      ips: [{ publicIP: b.publicIp }],
      routingStrategy: 0,
      routingMetaData: '{}',
    });
    await createPool({
      name: 'First',
      ips: [{ publicIP: a.publicIp }],
      routingStrategy: 0,
      routingMetaData: '{}',
      shouldOverflow: true,
      overflowPoolName: 'Second',
    });
    // Closing the loop is refused on write; routing would stop at the repeated pool anyway.
    const loop = await api.call('PUT', `/account/ippool/${second.id}`, {
      ...account(),
      body: { shouldOverflow: true, overflowPoolName: 'First' },
    });
    expect(loop.status).toBe(422);
    expect((await api.call('PUT', `/account/ip/${a.id}`, { ...account(), body: { state: 1 } })).status).toBe(200);

    const [overflowed] = await send(['o@rcpt.test'], { ippool: 'First' });
    const [view] = await delivered([overflowed!]);
    expect(sourceOf(overflowed!)).toBe('127.0.0.3');
    expect(view.events.find((e: Json) => e.type === 2)).toMatchObject({ ipID: b.id, ipPoolID: second.id });

    // Both pools' IPs paused: the message waits, queued, without an attempt, event or bounce.
    expect((await api.call('PUT', `/account/ip/${b.id}`, { ...account(), body: { state: 1 } })).status).toBe(200);
    const [waiting] = await send(['w@rcpt.test'], { ippool: 'First' });
    await vi.waitFor(
      () =>
        expect(
          logged.some((l) => l.message === 'delivery: deferred by routing' && l.fields?.messageId === waiting),
        ).toBe(true),
      {
        timeout: 15_000,
        interval: 20,
      },
    );
    const queued = await message(waiting!);
    expect(queued).toMatchObject({ status: 'queued', attempt: 0 });
    expect(queued.events.map((e: Json) => e.type)).toEqual([0]);
    const stats = await api.call('GET', '/subaccount/stat/aggregate', {
      sub: sender.subAccount.apiKey,
      query: { from: '2026-05-01', to: '2026-05-01' },
    });
    expect(stats.body).toMatchObject({ softBounced: 0, hardBounced: 0, delivered: 1 });

    // The First pool's IP is back: the next routing (a minute later) sends it from there.
    expect((await api.call('PUT', `/account/ip/${a.id}`, { ...account(), body: { state: 0 } })).status).toBe(200);
    clock.advance(ROUTING_WAIT_MS);
    contextOf(api.mailplane).jobs.notify();
    const [after] = await delivered([waiting!]);
    expect(sourceOf(waiting!)).toBe('127.0.0.2');
    expect(after.attempt).toBe(1);
    expect(after.events.map((e: Json) => e.type)).toEqual([0, 2]);
  });

  it('a TPSP pool relays through the TPSP with its stored credentials, and the events name the TPSP', async () => {
    const auths: Array<{ username: string | undefined; password: string | null | undefined }> = [];
    const relayed: Array<{ from: string; user: string | undefined }> = [];
    const relay = new SMTPServer({
      authOptional: false,
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      // mailplane keeps its pooled connection open: do not wait 30 s for it at close.
      closeTimeout: 100,
      onAuth(auth, _session, callback) {
        auths.push({ username: auth.username, password: auth.password });
        if (auth.username === 'relay-user' && auth.password === 'relay-pass-7') callback(null, { user: auth.username });
        else callback(new Error('Invalid username or password'));
      },
      onData(stream, session, callback) {
        stream.resume();
        stream.on('end', () => {
          relayed.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            user: typeof session.user === 'string' ? session.user : undefined,
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    try {
      const port = (relay.server.address() as { port: number }).port;
      const tpsp = await api.call('POST', '/account/tpsp', {
        ...account(),
        body: {
          name: 'Relay',
          type: 3,
          host: '127.0.0.1',
          port,
          security: 'none',
          username: 'relay-user',
          password: 'relay-pass-7',
        },
      });
      expect(tpsp.status, tpsp.text).toBe(200);
      const pool = await createPool({
        name: 'ViaRelay',
        tpsps: [tpsp.body.id],
        routingStrategy: 0,
        routingMetaData: '{}',
      });
      const ids = await send(['t1@rcpt.test', 't2@gmail.com'], { ippool: 'ViaRelay' });
      const views = await delivered(ids);
      expect(relayed).toHaveLength(2);
      expect(relayed.every((r) => r.user === 'relay-user')).toBe(true);
      expect(auths.length).toBeGreaterThan(0);
      expect(auths.every((a) => a.username === 'relay-user' && a.password === 'relay-pass-7')).toBe(true);
      expect(sink.received).toHaveLength(0);
      for (const view of views) {
        expect(view.ipID).toBeUndefined();
        expect(view.events.find((e: Json) => e.type === 2)).toMatchObject({ tpspId: tpsp.body.id, ipPoolID: pool.id });
      }
    } finally {
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    }
  });
});
