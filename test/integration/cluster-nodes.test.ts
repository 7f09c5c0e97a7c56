/**
 * Two mailplane nodes on one PostgreSQL database act as one: a warming IP's daily cap holds for
 * both together (the store reserves each send), and a pool and a webhook changed through node A
 * are used by the very next send through node B (the shared configuration version). Each node has
 * its own store (its own connection pool and LISTEN connection) and its own caches, as separate
 * processes would; real DNS, SMTP sink and webhook receiver on loopback.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { createMailplane, silentLogger, type HttpRequest, type Mailplane, type MailplaneOptions } from 'mailplane';
import { openKyselyStore } from 'mailplane/storage/kysely';
import { mxTransport } from '../../adapters/transport/smtp/index.js';
import { createTestApi, TEST_SECRET, type CallOptions, type CallResult, type TestApi } from '../support/api.js';
import { pgUrl } from '../support/databases.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { createSender, sendBody, type Sender } from '../support/sending.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the JSON shape
type Json = any;

/** A warmup plan whose first stage allows 10 sends a day per provider. */
const CAP = 10;

/** `call` of a node that is not the test API's own instance. */
function caller(mailplane: Mailplane) {
  return async (method: string, path: string, o: CallOptions = {}): Promise<CallResult> => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (o.account !== undefined) headers['x-account-apikey'] = o.account;
    if (o.sub !== undefined) headers['x-subaccount-apikey'] = o.sub;
    const request: HttpRequest = {
      method,
      path,
      headers,
      query: new URLSearchParams(),
      rawBody: o.body === undefined ? '' : JSON.stringify(o.body),
    };
    const response = await mailplane.handle(request);
    return { status: response.status, body: JSON.parse(response.body), text: response.body, headers: response.headers };
  };
}

describe.skipIf(!pgUrl)('two nodes on one PostgreSQL', () => {
  let dns: TestDnsServer;
  let sink: SmtpSink;
  let receiver: WebhookReceiver;
  let a: TestApi;
  let b: Mailplane;
  let callB: ReturnType<typeof caller>;
  let sender: Sender;

  /** Both nodes' options: each greets with its own EHLO name, so the sink tells who sent what. */
  const options = (name: string, pageSize: number): Partial<MailplaneOptions> => ({
    dns: { servers: [{ host: dns.host, port: dns.port }], timeoutMs: 5_000, retries: 1 },
    delivery: {
      mxPort: sink.port,
      pageSize,
      socketTimeoutMs: 2000,
      greetingTimeoutMs: 2000,
      connectionTimeoutMs: 2000,
    },
    jobs: { pollIntervalMs: 1_000 },
    warmup: { plan: { stages: [CAP] } },
    webhooks: { allowPrivateTargets: true, timeoutMs: 2000 },
    transport: (ctx) => mxTransport({ resolver: ctx.resolver, port: ctx.delivery.mxPort, ehloName: name }),
  });

  async function startNodes(pageSize: number) {
    a = await createTestApi('postgres', options('node-a.test', pageSize));
    b = createMailplane({
      store: await openKyselyStore({ url: a.url, maxConnections: 5 }),
      secret: TEST_SECRET,
      logger: silentLogger,
      ...options('node-b.test', pageSize),
    });
    callB = caller(b);
    sender = await createSender(a, 'cluster', 'sender.test');
    const domain = (await contextOf(a.mailplane).store.domains.get(sender.subAccount.id, sender.domain.id))!;
    dns.txt(`${domain.dkimSelector}._domainkey.${domain.name}`, `v=DKIM1; k=rsa; p=${domain.dkimPublicKey}`);
  }

  beforeEach(async () => {
    dns = await startTestDnsServer();
    dns.set('rcpt.test', 'MX', [{ exchange: 'mx.rcpt.test', preference: 10 }]);
    dns.set('mx.rcpt.test', 'A', ['127.0.0.1']);
    sink = await startSmtpSink();
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    await b?.close();
    await a?.close();
    await receiver?.close();
    await sink?.close();
    await dns?.close();
  });

  const account = () => ({ account: a.accountKey });
  async function allocate(address: string, autoWarmupEnabled: boolean): Promise<Json> {
    const result = await a.call('PUT', '/account/ip/allocate', {
      ...account(),
      body: { ips: [address], autoWarmupEnabled },
    });
    expect(result.status, result.text).toBe(200);
    return result.body;
  }
  async function createPool(name: string, address: string): Promise<Json> {
    const result = await a.call('POST', '/account/ippool', {
      ...account(),
      body: { name, routingStrategy: 0, routingMetaData: '{}', ips: [{ publicIP: address }] },
    });
    expect(result.status, result.text).toBe(200);
    return result.body;
  }
  const sendVia = async (call: typeof callB, to: string[], ippool: string): Promise<string[]> => {
    const result = await call('POST', '/subaccount/email', {
      sub: sender.subAccount.apiKey,
      body: sendBody(`news@${sender.domain.name}`, to, { ippool }),
    });
    expect(result.status, result.text).toBe(200);
    return result.body.map((e: Json) => e.messageId);
  };
  const status = async (id: string) => (await a.call('GET', `/account/message/${id}`, account())).body.status;
  const waitDelivered = (id: string) =>
    vi.waitFor(async () => expect(await status(id)).toBe('delivered'), { timeout: 20_000, interval: 25 });
  const sourceOf = (id: string) => sink.received.find((m) => m.raw.toString('latin1').includes(id))?.remoteAddress;

  it(
    'never sends more than a warming IP’s daily cap between them, whichever node delivers',
    { timeout: 90_000 },
    async () => {
      await startNodes(2);
      const warm = await allocate('127.0.0.2', true);
      await createPool('Warm', warm.publicIp);
      await Promise.all([a.mailplane.start(), b.start()]);
      const ids = await sendVia(
        caller(a.mailplane),
        Array.from({ length: 40 }, (_, i) => `r${i}@rcpt.test`),
        'warm',
      );
      // Over the cap, mail waits for the next day (no overflow pool): settled once every message
      // was either sent or deferred by routing.
      await vi.waitFor(
        async () => {
          const states = await Promise.all(ids.map(status));
          expect(states.filter((s) => s === 'delivered')).toHaveLength(CAP);
          expect(states.filter((s) => s === 'queued' || s === 'deferred')).toHaveLength(ids.length - CAP);
        },
        { timeout: 60_000, interval: 100 },
      );
      // Give a node that overshoots the time to do it, then count what the IP really sent.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(sink.received.filter((m) => m.remoteAddress === '127.0.0.2')).toHaveLength(CAP);
      const view = (await callB('GET', `/account/ip/${warm.id}`, account())).body;
      expect(JSON.parse(view.autoWarmupPlan.defaultWarmupPlan).sentToday).toBe(CAP);
    },
  );

  it('uses a pool and a webhook changed on node A in the next send through node B', { timeout: 90_000 }, async () => {
    await startNodes(200);
    await allocate('127.0.0.2', false);
    await allocate('127.0.0.3', false);
    const pool = await createPool('Main', '127.0.0.2');
    // Node B delivers (node A only serves the API): B's routing table and webhook presence are warm.
    await b.start();
    const [first] = await sendVia(callB, ['first@rcpt.test'], 'main');
    await waitDelivered(first!);
    expect(sourceOf(first!)).toBe('127.0.0.2');

    // On node A: the pool moves to the other IP, and a webhook is switched on.
    const moved = await a.call('PUT', `/account/ippool/${pool.id}`, {
      ...account(),
      body: { name: 'Main', routingStrategy: 0, routingMetaData: '{}', ips: [{ publicIP: '127.0.0.3' }] },
    });
    expect(moved.status, moved.text).toBe(200);
    const hook = await a.call('POST', '/account/webhook', {
      ...account(),
      body: { url: receiver.url, processed: true, delivered: true },
    });
    expect(hook.status, hook.text).toBe(200);

    // At once, through node B.
    const [second] = await sendVia(callB, ['second@rcpt.test'], 'main');
    await waitDelivered(second!);
    expect(sourceOf(second!)).toBe('127.0.0.3');
    await vi.waitFor(
      () => {
        const types = receiver.received
          .filter((d) => d.json.event.messageID === second)
          .map((d) => d.json.event.type)
          .sort();
        expect(types).toEqual([0, 2]); // Processed, Delivered
      },
      { timeout: 15_000, interval: 25 },
    );
    expect(receiver.received.some((d) => d.json.event.messageID === first)).toBe(false);
  });
});
