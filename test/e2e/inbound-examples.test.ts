/**
 * Receiving mail as an operator runs it (docs/inbound.md): the Express and Koa example servers in
 * their own processes with `MAILPLANE_INBOUND_PORT`, a test DNS server publishing the remote
 * sender's SPF, DKIM and DMARC, and a real webhook receiver on loopback; everything through the
 * HTTP API and SMTP as nodemailer sends it.
 *
 * - A message with an attachment reaches the route's webhook as JSON that `standardwebhooks` verifies
 *   with the route's secret, with the attachment and the authentication results; the API lists it
 *   `posted`, shows it, answers its raw copy and delivers it again.
 * - A reply to a message sent through the API is threaded to it.
 * - An unknown recipient is refused at `RCPT TO`; a 30 MB message is refused `552` and nothing is stored.
 * - A `forward` route sends the message on, as received and ARC-sealed, to the next hop (a real SMTP
 *   sink, the MX of `rcpt.test`), and the forward is a send in the activity.
 */
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl, pgUrl, type StoreKind, type TestDatabase } from '../support/databases.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { exampleApi, verifiedSender, type ExampleApi } from '../support/example-api.js';
import { startExample, type ExampleServer } from '../support/example-server.js';
import { publishRemoteSender, REMOTE_DOMAIN } from '../support/inbound.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../support/webhook-receiver.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
type Json = any;

const POLL = { timeout: 30_000, interval: 250 };
const DOMAIN = 'acme.test';
const SUPPORT = `support@${DOMAIN}`;
const MX_HOST = 'mx.mailplane.test';
/** Above the listener's default limit of 25 MB. */
const TOO_LARGE_BYTES = 30 * 1024 * 1024;

const cases: Array<readonly ['express' | 'koa', StoreKind]> = [
  ['express', 'sqlite'],
  ['koa', pgUrl ? 'postgres' : 'sqlite'],
];

describe.each(cases)('receiving mail through the %s example on %s', (name, kind) => {
  let dns: TestDnsServer;
  let hook: WebhookReceiver;
  let database: TestDatabase | undefined;
  let server: ExampleServer;
  let api: ExampleApi;
  let key: Record<string, string>;
  let secret: string;
  let dkim: ReturnType<typeof publishRemoteSender>;
  let inboundPort: number;
  let sink: SmtpSink;

  beforeAll(async () => {
    dns = await startTestDnsServer();
    dkim = publishRemoteSender(dns);
    hook = await startWebhookReceiver();
    sink = await startSmtpSink();
    dns.set('rcpt.test', 'MX', [{ exchange: 'mx.rcpt.test', preference: 10 }]);
    dns.set('mx.rcpt.test', 'A', ['127.0.0.1']);
    database = kind === 'postgres' ? await freshDatabaseUrl('postgres') : undefined;
    server = await startExample(name, {
      MAILPLANE_DNS_SERVERS: dns.address,
      MAILPLANE_INBOUND_PORT: '0',
      MAILPLANE_MX_PORT: String(sink.port),
      MAILPLANE_INBOUND_HOSTNAME: MX_HOST,
      MAILPLANE_WEBHOOKS_ALLOW_PRIVATE: 'on',
      ...(database && { MAILPLANE_DATABASE_URL: database.url }),
    });
    inboundPort = Number(/SMTP inbound MX listener listening on 127\.0\.0\.1:(\d+)/.exec(server.output())?.[1]);
    api = exampleApi(server);
    key = (await verifiedSender(api, dns, 'Support desk', DOMAIN)).key;
    const [domain] = (await api.ok('GET', '/subaccount/domain', key)) as Json[];
    const receiving = await api.ok('POST', `/subaccount/domain/${domain.id}/inbound`, key);
    expect(receiving.inbound).toMatchObject({ enabled: true, mxRecord: { value: MX_HOST } });
    const route = await api.ok('POST', '/subaccount/route', key, {
      pattern: SUPPORT,
      action: 'webhook',
      url: hook.url,
    });
    secret = route.secret;
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await hook?.close();
    await sink?.close();
    await dns?.close();
    await database?.drop();
  });

  /** Sends `mail` over SMTP to the example's inbound port from alice@remote.test, DKIM-signed. */
  const submit = (mail: Mail.Options) =>
    nodemailer
      .createTransport({ host: '127.0.0.1', port: inboundPort, ignoreTLS: true, name: `mail.${REMOTE_DOMAIN}`, dkim })
      .sendMail({ from: `Alice <alice@${REMOTE_DOMAIN}>`, ...mail });
  const received = (): Promise<Json[]> => api.ok('GET', '/subaccount/inbound/message', key);
  /** The deliveries whose subject is `subject`, each verified with the route's secret (a bad signature throws). */
  const posts = (subject: string): ReceivedDelivery[] =>
    hook.received.filter((delivery) => {
      if (delivery.json?.subject !== subject) return false;
      new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>);
      return true;
    });

  it('posts a message with its attachment and authentication results, signed; the API lists, shows and redelivers it', async () => {
    const subject = `Order 42 (${name})`;
    const note = Buffer.from('the order form, filled in');
    await submit({
      to: `Support <${SUPPORT}>`,
      subject,
      text: 'Where is my order?',
      attachments: [{ filename: 'order.txt', content: note, contentType: 'text/plain' }],
    });

    await expect.poll(() => posts(subject).length, POLL).toBe(1);
    const [post] = posts(subject);
    expect(post!.json).toMatchObject({
      type: 'inbound.received',
      envelope: { mailFrom: `alice@${REMOTE_DOMAIN}`, rcptTo: SUPPORT },
      from: [{ address: `alice@${REMOTE_DOMAIN}`, name: 'Alice' }],
      text: expect.stringContaining('Where is my order?'),
      attachments: [
        { filename: 'order.txt', contentType: 'text/plain', size: note.length, content: note.toString('base64') },
      ],
      auth: { spf: 'pass', dkim: 'pass', dmarc: 'pass' },
      inReplyToMessageId: null,
    });
    const id = post!.json.id as string;
    expect(post!.headers['webhook-id']).toBe(id);

    await expect.poll(async () => (await received()).find((message) => message.id === id)?.status, POLL).toBe('posted');
    const shown = await api.ok('GET', `/subaccount/inbound/message/${id}`, key);
    expect(shown).toMatchObject({
      envelope: { rcptTo: SUPPORT },
      from: `alice@${REMOTE_DOMAIN}`,
      subject,
      status: 'posted',
      auth: { spf: 'pass', dkim: 'pass', dmarc: 'pass' },
      rawKept: true,
    });
    expect(shown).not.toHaveProperty('raw');

    const raw = await fetch(`${server.baseUrl}/subaccount/inbound/message/${id}/raw`, { headers: key });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toBe('message/rfc822');
    const text = await raw.text();
    expect(text).toContain(`Subject: ${subject}`);
    expect(text).toMatch(/^DKIM-Signature: /m);

    // Delivered again: a second post of the same message (same webhook-id), and the message posted again.
    expect((await api.ok('POST', `/subaccount/inbound/message/${id}/redeliver`, key)).status).toBe('pending');
    await expect.poll(() => posts(subject).length, POLL).toBe(2);
    expect(posts(subject)[1]!.headers['webhook-id']).toBe(id);
    await expect
      .poll(async () => (await api.ok('GET', `/subaccount/inbound/message/${id}`, key)).status, POLL)
      .toBe('posted');
  });

  it('threads a reply to the message it answers, sent through the API', async () => {
    const [sent] = (await api.ok('POST', '/subaccount/email', key, {
      from: { email: SUPPORT, name: 'Support' },
      to: [{ email: `alice@${REMOTE_DOMAIN}` }],
      subject: 'Your order 43',
      textBody: 'It is on its way.',
    })) as Json[];
    const subject = `Re: Your order 43 (${name})`;
    await submit({ to: SUPPORT, subject, text: 'Thanks!', inReplyTo: `<${sent.messageId}@${DOMAIN}>` });

    await expect.poll(() => posts(subject).length, POLL).toBe(1);
    expect(posts(subject)[0]!.json.inReplyToMessageId).toBe(sent.messageId);
    const listed = (await received()).find((message) => message.subject === subject);
    expect(listed.inReplyToMessageId).toBe(sent.messageId);
  });

  it("forwards a message as received, ARC-sealed, through the sub-account's own delivery", async () => {
    const to = `desk-${name}@rcpt.test`;
    await api.ok('POST', '/subaccount/route', key, { pattern: `desk@${DOMAIN}`, action: 'forward', forwardTo: to });
    const subject = `Forward me (${name})`;
    await submit({ to: `desk@${DOMAIN}`, subject, text: 'Please pass this on.' });

    await expect.poll(() => sink.received.filter((m) => m.rcptTo.includes(to)).length, POLL).toBe(1);
    const [forwarded] = sink.received.filter((m) => m.rcptTo.includes(to));
    const raw = forwarded!.raw.toString();
    expect(raw).toMatch(/^DKIM-Signature: [^]*d=acme\.test;[^]*\r\nARC-Seal: i=1; [^]*cv=none; d=acme\.test;/);
    expect(raw).toContain(`From: Alice <alice@${REMOTE_DOMAIN}>`);
    expect(raw).toContain('Please pass this on.');
    const listed = async () => (await received()).find((message) => message.subject === subject);
    await expect.poll(async () => (await listed())?.status, POLL).toBe('forwarded');
    expect(await listed()).toMatchObject({ envelope: { rcptTo: `desk@${DOMAIN}` } });
    const forwardId = /as message ([0-9a-f-]{36})/.exec((await listed()).detail)?.[1];
    await expect
      .poll(async () => (await api.ok('GET', `/subaccount/message/${forwardId}`, key)).status, POLL)
      .toBe('delivered');
  });

  it('refuses an unknown recipient at RCPT TO, and a 30 MB message with 552, storing nothing', async () => {
    await expect(submit({ to: `nobody@${DOMAIN}`, subject: 'Hello?', text: 'anyone?' })).rejects.toMatchObject({
      responseCode: 550,
      response: expect.stringContaining('5.1.1'),
    });

    const before = await received();
    const line = `${'x'.repeat(998)}\r\n`;
    const body = line.repeat(Math.ceil(TOO_LARGE_BYTES / line.length));
    const raw = `From: alice@${REMOTE_DOMAIN}\r\nTo: ${SUPPORT}\r\nSubject: Too large\r\n\r\n${body}`;
    await expect(submit({ envelope: { from: `alice@${REMOTE_DOMAIN}`, to: [SUPPORT] }, raw })).rejects.toMatchObject({
      responseCode: 552,
    });
    expect(await received()).toEqual(before);
  }, 90_000);
});
