/**
 * The sandbox (src/sandbox): a real DNS server and mail catcher on loopback. A domain under .test
 * verifies through the normal DNS check, and a send goes through the whole pipeline into the
 * catcher, readable through the API with its DKIM result.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { EventType, startSandbox } from 'mailplane';
import { mxTransport } from '../../adapters/transport/smtp/index.js';
import { createTestApi, type TestApi } from '../support/api.js';
import { storeKinds, type StoreKind } from '../support/databases.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { rawSmtp } from '../support/raw-smtp.js';

let api: TestApi | undefined;
let upstream: TestDnsServer | undefined;
afterEach(async () => {
  await api?.close();
  await upstream?.close();
  api = upstream = undefined;
});

async function startSandboxed(kind: StoreKind, keep?: number) {
  upstream = await startTestDnsServer();
  upstream.txt('outside.org', 'hello from upstream');
  const sandbox = await startSandbox({ ...(keep !== undefined && { keep }) });
  api = await createTestApi(kind, {
    sandbox,
    dns: { servers: [{ host: upstream.host, port: upstream.port }], timeoutMs: 1000, retries: 1 },
    delivery: { retryDelaysMs: [50, 50], connectionTimeoutMs: 3000, greetingTimeoutMs: 3000, socketTimeoutMs: 3000 },
    jobs: { pollIntervalMs: 25 },
    transport: (ctx) =>
      mxTransport({ resolver: ctx.resolver, port: ctx.delivery.mxPort, ehloName: 'mta.mailplane.test' }),
  });
  api.mailplane.start();
  const a = api;
  const sub = await a.call('POST', '/account/subaccount', { account: a.accountKey, body: { name: 'acme' } });
  const domain = await a.call('POST', '/subaccount/domain', { sub: sub.body.apiKey, body: { name: 'acme.test' } });
  const verified = await a.call('POST', `/subaccount/domain/${domain.body.id}/verify`, { sub: sub.body.apiKey });
  return { api: a, sandbox, key: sub.body.apiKey as string, verified };
}

const send = (a: TestApi, key: string, to: string[]) =>
  a.call('POST', '/subaccount/email', {
    sub: key,
    body: {
      from: { email: 'hello@acme.test' },
      to: to.map((email) => ({ email, customFields: { name: 'Ada' } })),
      subject: 'Hi {{name}}',
      textBody: 'Hello {{name}}!',
    },
  });

const waitStatus = async (a: TestApi, messageId: string, status: string) =>
  vi.waitFor(
    async () => {
      const view = (await a.call('GET', `/account/message/${messageId}`, { account: a.accountKey })).body;
      if (view.status !== status) throw new Error(`status ${view.status}`);
      return view;
    },
    { timeout: 20_000, interval: 50 },
  );

describe.each(storeKinds)('sandbox (%s)', (kind) => {
  it('verifies acme.test at once, delivers into the catcher, and shows the message with a passing DKIM result', async () => {
    const { api: a, key, verified } = await startSandboxed(kind);
    expect(verified.status).toBe(200);
    expect(verified.body.verified).toBe(true);
    // Every record mailplane asks the domain to publish is answered exactly, so every check passes.
    expect(verified.body).toMatchObject({
      dkimVerified: true,
      spfVerified: true,
      dmarcVerified: true,
      returnPathVerified: true,
      trackVerified: true,
    });
    // Questions about other names go to the configured resolvers.
    const outside = await contextOf(a.mailplane).resolver.resolveTxt('outside.org');
    expect(outside.ok && outside.records).toEqual(['hello from upstream']);

    const [sent] = (await send(a, key, ['ada@example.com'])).body;
    await waitStatus(a, sent.messageId, 'delivered');
    const list = await a.call('GET', '/account/sandbox/message', { account: a.accountKey });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({ messageId: sent.messageId, rcptTo: ['ada@example.com'], subject: 'Hi Ada' });
    expect(list.body[0].mailFrom).toBe(`b+${sent.messageId}@mp-bounces.acme.test`);
    const one = await a.call('GET', `/account/sandbox/message/${list.body[0].id}`, { account: a.accountKey });
    expect(one.status).toBe(200);
    expect(one.body.raw).toContain('Hello Ada!');
    expect(one.body.dkim).toMatchObject({ result: 'pass', domain: 'acme.test' });
    expect((await a.call('GET', '/account/sandbox/message/999999', { account: a.accountKey })).status).toBe(406);
  });

  it('answers each special address as docs/sandbox.md and the README say', async () => {
    const { api: a, key } = await startSandboxed(kind);
    const sent = (await send(a, key, ['bounce@example.com', 'defer@example.com', 'complaint@example.com']))
      .body as Array<{ messageId: string; to: string }>;
    const id = (to: string) => sent.find((s) => s.to === to)!.messageId;
    const types = (view: { events: { type: number }[] }) => view.events.map((e) => e.type);

    // bounce@: a hard bounce with the catcher's 550 5.1.1, and the address suppressed.
    const bounced = await waitStatus(a, id('bounce@example.com'), 'hard_bounced');
    expect(types(bounced)).toEqual([EventType.Processed, EventType.HardBounced]);
    expect(bounced.events[1]).toMatchObject({
      smtpCode: 550,
      smtpDescription: expect.stringMatching(/^550 5\.1\.1 .*bounce@/),
    });
    const suppressed = await a.call('GET', '/subaccount/suppression', { sub: key });
    expect(suppressed.text).toContain('bounce@example.com');

    // defer@: a soft bounce with the catcher's 421 4.7.0 on every attempt; once the retries run out
    // the message is dropped, as any policy deferral (4.7.x) is, and the address is not suppressed.
    const deferred = await waitStatus(a, id('defer@example.com'), 'smtp_dropped');
    expect(types(deferred)).toEqual([
      EventType.Processed,
      EventType.SoftBounced,
      EventType.SoftBounced,
      EventType.Dropped,
    ]);
    for (const attempt of deferred.events.slice(1)) {
      expect(attempt).toMatchObject({ smtpCode: 421, smtpDescription: expect.stringMatching(/^421 4\.7\.0 .*defer@/) });
    }
    expect(deferred.events[3].eventMetadata.reason).toBe('SMTP_DROPPED');
    expect(suppressed.text).not.toContain('defer@example.com');

    // complaint@: delivered into the catcher, then reported as spam.
    const complained = await vi.waitFor(
      async () => {
        const view = (await a.call('GET', `/account/message/${id('complaint@example.com')}`, { account: a.accountKey }))
          .body;
        expect(view.status).toBe('delivered');
        expect(types(view)).toEqual([EventType.Processed, EventType.Delivered, EventType.Spam]);
        return view;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(complained.events[1]).toMatchObject({ smtpCode: 250 });
    const list = await a.call('GET', '/account/sandbox/message', { account: a.accountKey });
    expect(list.body.map((m: { rcptTo: string[] }) => m.rcptTo[0])).toEqual(['complaint@example.com']);
  });

  it('keeps the newest messages of the account only', async () => {
    const { api: a, key } = await startSandboxed(kind, 2);
    for (const to of ['one@example.com', 'two@example.com', 'three@example.com']) {
      const [sent] = (await send(a, key, [to])).body;
      await waitStatus(a, sent.messageId, 'delivered');
    }
    const list = await a.call('GET', '/account/sandbox/message', { account: a.accountKey, query: { limit: 10 } });
    expect(list.body.map((m: { rcptTo: string[] }) => m.rcptTo[0])).toEqual(['three@example.com', 'two@example.com']);
    const page = await a.call('GET', '/account/sandbox/message', {
      account: a.accountKey,
      query: { limit: 1, offset: 1 },
    });
    expect(page.body.map((m: { rcptTo: string[] }) => m.rcptTo[0])).toEqual(['two@example.com']);
  });

  it('discards mail that is not a mailplane delivery, and answers bounce@ and defer@ at RCPT TO', async () => {
    const { api: a, sandbox } = await startSandboxed(kind);
    const smtp = await rawSmtp(sandbox.smtpPort);
    expect(await smtp.command('EHLO client.test')).toMatch(/^250/);
    expect(await smtp.command('MAIL FROM:<someone@elsewhere.test>')).toMatch(/^250/);
    expect(await smtp.command('RCPT TO:<bounce@example.com>')).toMatch(/^550 5\.1\.1/);
    expect(await smtp.command('RCPT TO:<anyone@example.com>')).toMatch(/^250/);
    expect(await smtp.command('DATA')).toMatch(/^354/);
    await smtp.send('Subject: not ours\r\n\r\nhello\r\n.\r\n');
    expect(await smtp.reply()).toMatch(/^250 .*Discarded/);
    expect(await smtp.command('RSET')).toMatch(/^250/);
    expect(await smtp.command('MAIL FROM:<someone@elsewhere.test>')).toMatch(/^250/);
    expect(await smtp.command('RCPT TO:<Defer@example.com>')).toMatch(/^421 4\.7\.0/);
    smtp.close();
    expect(await a.call('GET', '/account/sandbox/message', { account: a.accountKey })).toMatchObject({
      status: 200,
      body: [],
    });
  });
});
