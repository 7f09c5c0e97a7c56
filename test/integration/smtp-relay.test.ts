/**
 * The SMTP relay end to end: nodemailer submits over STARTTLS and implicit TLS with a
 * sub-account's SMTP credentials, the message goes through the send pipeline and reaches a real
 * SMTP sink DKIM-signed; what the relay refuses, and with which reply.
 */
import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSmtpRelay, type SmtpRelay } from 'mailplane';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';
import { selfSignedCertificate } from '../support/tls-cert.js';

const tls = selfSignedCertificate();

describe.each(storeKinds)('the SMTP relay (%s)', (kind) => {
  let env: DeliveryEnv;
  let relays: SmtpRelay[];
  let credentials: { user: string; pass: string };

  beforeEach(async () => {
    env = await startDeliveryEnv(kind);
    relays = [];
    const auth = env.sender.subAccount.smtpAuths[0]!;
    credentials = { user: auth.username, pass: auth.password };
  });
  afterEach(async () => {
    for (const relay of relays) await relay.close();
    await env.close();
  });

  async function relay(options: Parameters<typeof createSmtpRelay>[1] = { tls }): Promise<number> {
    const created = createSmtpRelay(env.api.mailplane, options);
    relays.push(created);
    return (await created.listen(0, '127.0.0.1')).port;
  }

  const client = (port: number, extra: Record<string, unknown> = {}) =>
    nodemailer.createTransport({
      host: '127.0.0.1',
      port,
      requireTLS: true,
      tls: { rejectUnauthorized: false },
      auth: credentials,
      ...extra,
    });

  const mail = (extra: Record<string, unknown> = {}) => ({
    from: `News <news@${env.sender.domain.name}>`,
    to: `Ann <ann@${RCPT_DOMAIN}>`,
    bcc: `hidden@${RCPT_DOMAIN}`,
    subject: 'Relayed',
    text: 'plain text',
    html: '<p>html body</p>',
    headers: { 'X-Tenant': 'tenant-9', 'X-Mailplane-Groups': 'relay, weekly' },
    attachments: [{ filename: 'note.txt', content: 'attached' }],
    ...extra,
  });

  it('takes a message over STARTTLS with AUTH and delivers it, signed, to each envelope recipient', async () => {
    const port = await relay();
    const info = await client(port).sendMail(mail());
    expect(info.response).toMatch(/^250 2\.0\.0 Ok: queued 2 messages as [0-9a-f-]{36}$/);
    const id = /as (\S+)$/.exec(info.response)![1]!;
    const view = await env.waitForStatus(id, 'delivered');
    expect(view).toMatchObject({
      headers: { 'X-Tenant': 'tenant-9' },
      groups: ['relay', 'weekly'],
      subject: 'Relayed',
    });
    await env.waitForMessage(id, () => expect(env.sink.received).toHaveLength(2));
    const got = env.sink.received.find((m) => m.rcptTo.includes(`ann@${RCPT_DOMAIN}`))!;
    expect((await env.verifyDkim(got.raw)).status).toBe('pass');
    const parsed = await simpleParser(got.raw);
    expect(parsed.to).toMatchObject({ value: [{ address: `ann@${RCPT_DOMAIN}`, name: 'Ann' }] });
    expect(parsed.html).toContain('<p>html body</p>');
    expect(parsed.text?.trim()).toBe('plain text');
    expect(parsed.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([['note.txt', 'attached']]);
    expect(parsed.headers.get('x-tenant')).toBe('tenant-9');
    expect(parsed.headers.has('x-mailplane-groups')).toBe(false);
    // The bcc recipient got a message of their own and is named in no header.
    expect(env.sink.received.find((m) => m.rcptTo.includes(`hidden@${RCPT_DOMAIN}`))).toBeDefined();
  });

  it('takes a message over implicit TLS (port 465 style), a control character in a display name included', async () => {
    const port = await relay({ tls, secure: true });
    const info = await client(port, { secure: true, requireTLS: false }).sendMail(
      mail({ bcc: undefined, to: { name: 'Ann\u0007Lee', address: `ann@${RCPT_DOMAIN}` } }),
    );
    expect(info.response).toMatch(/^250 /);
    const view = await env.message(/as (\S+)$/.exec(info.response)![1]!);
    expect(view.to).toMatchObject({ email: `ann@${RCPT_DOMAIN}`, name: 'Ann Lee' });
  });

  it('refuses wrong credentials, another sub-account of nobody, and mail without AUTH', async () => {
    const port = await relay();
    await expect(client(port, { auth: { ...credentials, pass: 'wrong' } }).sendMail(mail())).rejects.toMatchObject({
      responseCode: 535,
    });
    await expect(
      client(port, { auth: { user: 'smtp_nobody', pass: credentials.pass } }).sendMail(mail()),
    ).rejects.toMatchObject({ responseCode: 535 });
    await expect(client(port, { auth: undefined }).sendMail(mail())).rejects.toMatchObject({ responseCode: 530 });
    expect(env.sink.received).toEqual([]);
  });

  it('offers no AUTH before STARTTLS unless insecure AUTH is allowed', async () => {
    const port = await relay();
    // AUTH is not offered on the unencrypted connection, so nodemailer cannot log in.
    await expect(client(port, { ignoreTLS: true, requireTLS: false }).sendMail(mail())).rejects.toMatchObject({
      responseCode: 530,
    });
    const plain = await relay({ allowInsecureAuth: true });
    expect((await client(plain, { requireTLS: false }).sendMail(mail())).response).toMatch(/^250 /);
  });

  it('refuses a From domain that is not a verified domain of the sub-account, recording nothing', async () => {
    const port = await relay();
    const other = await env.api.call('POST', '/account/subaccount', {
      account: env.api.accountKey,
      body: { name: 'other' },
    });
    await env.api.call('POST', '/subaccount/domain', { sub: other.body.apiKey, body: { name: 'other.test' } });
    for (const from of ['news@other.test', 'news@unknown.test']) {
      await expect(client(port).sendMail(mail({ from }))).rejects.toMatchObject({
        responseCode: 550,
        response: expect.stringMatching(/5\.7\.1 .*sending domain/),
      });
    }
    const stats = await env.api.call('GET', '/subaccount/stat/aggregate', {
      sub: env.key,
      query: { from: '2026-05-01', to: '2026-05-01' },
    });
    expect(stats.body.processed).toBe(0);
  });

  it('refuses an oversized message and a bad control header with permanent replies', async () => {
    const port = await relay({ tls, maxMessageBytes: 10_000 });
    await expect(client(port).sendMail(mail({ text: 'x'.repeat(20_000) }))).rejects.toMatchObject({
      responseCode: 552,
    });
    await expect(
      client(port).sendMail(mail({ headers: { 'X-Mailplane-IpPool': 'no-such-pool' } })),
    ).rejects.toMatchObject({
      responseCode: 550,
      response: expect.stringContaining('UNKNOWN_IP_POOL'),
    });
  });
});

describe('the SMTP relay options', () => {
  let env: DeliveryEnv;
  beforeAll(async () => {
    env = await startDeliveryEnv('sqlite');
  });
  afterAll(() => env.close());

  it('will not run implicit TLS without a certificate', () => {
    expect(() => createSmtpRelay(env.api.mailplane, { secure: true })).toThrow(/needs tls/);
  });
});
