/**
 * The sandbox round trip (docs/sandbox.md, "Receiving mail"): mail mailplane delivers to a domain
 * with receiving enabled goes through the sandbox catcher into the inbound intake, as the inbound
 * listener takes it: a webhook route posts it (signed for standardwebhooks), a reply is threaded to
 * the message it answers, and an unknown or refused recipient is a hard bounce for the sender.
 */
import nodemailer from 'nodemailer';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventType, startSandbox } from 'mailplane';
import { mxTransport } from '../../adapters/transport/smtp/index.js';
import { createTestApi, type TestApi } from '../support/api.js';
import { storeKinds, type StoreKind } from '../support/databases.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../support/webhook-receiver.js';

let api: TestApi | undefined;
let upstream: TestDnsServer | undefined;
let hook: WebhookReceiver | undefined;
afterEach(async () => {
  await api?.close();
  await upstream?.close();
  await hook?.close();
  api = upstream = hook = undefined;
});

async function startSandboxed(kind: StoreKind) {
  upstream = await startTestDnsServer();
  hook = await startWebhookReceiver();
  const sandbox = await startSandbox();
  api = await createTestApi(kind, {
    sandbox,
    dns: { servers: [{ host: upstream.host, port: upstream.port }], timeoutMs: 1000, retries: 1 },
    delivery: { retryDelaysMs: [50, 50], connectionTimeoutMs: 3000, greetingTimeoutMs: 3000, socketTimeoutMs: 3000 },
    webhooks: { allowPrivateTargets: true },
    jobs: { pollIntervalMs: 25 },
    transport: (ctx) =>
      mxTransport({ resolver: ctx.resolver, port: ctx.delivery.mxPort, ehloName: 'mta.mailplane.test' }),
  });
  api.mailplane.start();
  const a = api;
  const sub = await a.call('POST', '/account/subaccount', { account: a.accountKey, body: { name: 'acme' } });
  const key = sub.body.apiKey as string;
  const domainIds: Record<string, number> = {};
  for (const name of ['acme.test', 'other.test']) {
    const domain = await a.call('POST', '/subaccount/domain', { sub: key, body: { name } });
    const verified = await a.call('POST', `/subaccount/domain/${domain.body.id}/verify`, { sub: key });
    expect(verified.body.verified).toBe(true);
    domainIds[name] = domain.body.id;
  }
  return { api: a, hook, sandbox, key, domainIds };
}

const send = async (a: TestApi, key: string, from: string, to: string, extra: Record<string, unknown> = {}) => {
  const sent = await a.call('POST', '/subaccount/email', {
    sub: key,
    body: { from: { email: from }, to: [{ email: to }], subject: 'Order 42', textBody: 'Where is it?', ...extra },
  });
  expect(sent.status).toBe(200);
  return sent.body[0].messageId as string;
};

const waitStatus = async (a: TestApi, messageId: string, status: string) =>
  vi.waitFor(
    async () => {
      const view = (await a.call('GET', `/account/message/${messageId}`, { account: a.accountKey })).body;
      if (view.status !== status) throw new Error(`status ${view.status}`);
      return view;
    },
    { timeout: 20_000, interval: 50 },
  );

const posts = async (receiver: WebhookReceiver, count: number): Promise<ReceivedDelivery[]> => {
  await vi.waitFor(() => expect(receiver.received.length).toBeGreaterThanOrEqual(count), {
    timeout: 20_000,
    interval: 50,
  });
  return receiver.received;
};

describe.each(storeKinds)('the sandbox round trip (%s)', (kind) => {
  it('posts mail delivered to a receiving domain, threads the reply, and bounces unknown recipients', async () => {
    const { api: a, hook: receiver, key, domainIds } = await startSandboxed(kind);
    const sandboxList = async () =>
      (await a.call('GET', '/account/sandbox/message', { account: a.accountKey })).body as unknown[];

    // Before receiving is enabled, the catcher keeps acme.test's mail in the sandbox list as any other.
    await waitStatus(a, await send(a, key, 'bob@other.test', 'support@acme.test'), 'delivered');
    expect(await sandboxList()).toHaveLength(1);

    // Enabled: the sandbox is the receiving host, so the MX check passes at once.
    const enabled = await a.call('POST', `/subaccount/domain/${domainIds['acme.test']}/inbound`, { sub: key });
    expect(enabled.status).toBe(200);
    expect(enabled.body.inbound).toMatchObject({ enabled: true, mxVerified: true });
    const route = await a.call('POST', '/subaccount/route', {
      sub: key,
      body: { pattern: 'support@acme.test', action: 'webhook', url: receiver.url },
    });
    expect(route.status).toBe(201);
    await a.call('POST', '/subaccount/route', { sub: key, body: { pattern: 'noreply@acme.test', action: 'refuse' } });

    const question = await send(a, key, 'bob@other.test', 'support@acme.test');
    await waitStatus(a, question, 'delivered');
    const [first] = await posts(receiver, 1);
    const payload = new Webhook(route.body.secret).verify(first!.body, first!.headers as Record<string, string>);
    expect(payload).toMatchObject({
      type: 'inbound.received',
      routeId: route.body.id,
      envelope: { rcptTo: 'support@acme.test' },
      from: [{ address: 'bob@other.test' }],
      subject: 'Order 42',
      text: expect.stringContaining('Where is it?'),
      auth: { dkim: 'pass' },
      inReplyToMessageId: null,
    });
    // Received, not caught: the sandbox list has the first message only.
    expect(await sandboxList()).toHaveLength(1);

    // acme.test writes to bob@other.test (caught by the sandbox), and bob's reply comes back threaded.
    const answer = await send(a, key, 'support@acme.test', 'bob@other.test');
    await waitStatus(a, answer, 'delivered');
    expect(await sandboxList()).toHaveLength(2);
    const reply = await send(a, key, 'bob@other.test', 'support@acme.test', {
      subject: 'Re: Order 42',
      headers: { 'In-Reply-To': `<${answer}@acme.test>` },
    });
    await waitStatus(a, reply, 'delivered');
    const second = (await posts(receiver, 2))[1]!;
    expect(second.json).toMatchObject({ subject: 'Re: Order 42', inReplyToMessageId: answer });
    const listed = await a.call('GET', '/subaccount/inbound/message', { sub: key });
    expect(listed.body[0]).toMatchObject({ subject: 'Re: Order 42', inReplyToMessageId: answer, status: 'posted' });

    // Refused at RCPT TO as the inbound listener refuses: a hard bounce for the sending side.
    const unknown = await waitStatus(a, await send(a, key, 'bob@other.test', 'nobody@acme.test'), 'hard_bounced');
    expect(unknown.events.map((e: { type: number }) => e.type)).toEqual([EventType.Processed, EventType.HardBounced]);
    expect(unknown.events[1].smtpDescription).toMatch(/^550 5\.1\.1 <nobody@acme\.test>: no such recipient here/);
    // A refuse route's 5.7.1 is a policy refusal to mailplane's delivery: dropped, the address not suppressed.
    const refused = await waitStatus(a, await send(a, key, 'bob@other.test', 'noreply@acme.test'), 'smtp_dropped');
    expect(refused.events[1].smtpDescription).toMatch(
      /^550 5\.7\.1 <noreply@acme\.test>: mail to this address is refused/,
    );
  });

  it('receives for a receiving domain from any sender, as swaks to the catcher sends it', async () => {
    const { api: a, hook: receiver, sandbox, key, domainIds } = await startSandboxed(kind);
    await a.call('POST', `/subaccount/domain/${domainIds['acme.test']}/inbound`, { sub: key });
    await a.call('POST', '/subaccount/route', {
      sub: key,
      body: { pattern: 'support@acme.test', action: 'webhook', url: receiver.url },
    });
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: sandbox.smtpPort, ignoreTLS: true });
    const info = await transport.sendMail({
      from: 'alice@mail.example',
      to: 'support@acme.test',
      subject: 'From outside',
      text: 'hello',
    });
    expect(info.response).toMatch(/^250 2\.0\.0 Received for 1 recipient of receiving domains/);
    const [post] = await posts(receiver, 1);
    expect(post!.json).toMatchObject({
      envelope: { mailFrom: 'alice@mail.example', rcptTo: 'support@acme.test' },
      subject: 'From outside',
    });
    await expect(
      transport.sendMail({ from: 'alice@mail.example', to: 'nobody@acme.test', subject: 'x', text: 'x' }),
    ).rejects.toMatchObject({ responseCode: 550 });
  });
});
