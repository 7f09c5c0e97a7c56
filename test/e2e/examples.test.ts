import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExample, type ExampleServer } from '../support/example-server.js';
import { schemaErrors } from '../support/openapi.js';
import { rawSmtp } from '../support/raw-smtp.js';

describe.each(['express', 'koa'] as const)('the %s example server', (name) => {
  let server: ExampleServer;
  beforeAll(async () => {
    server = await startExample(name);
  });
  afterAll(() => server?.stop());

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { 'x-account-apikey': server.accountKey, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
    return { status: response.status, body: (await response.json()) as any };
  };

  it('prints a generated account key once, and it works', async () => {
    expect(server.accountKey).toMatch(/^mpak_[0-9A-Za-z]{32}$/);
    expect(server.output().split(server.accountKey)).toHaveLength(2);
  });

  it('creates, lists, reads, renames and deletes a sub-account; the default one refuses deletion', async () => {
    const created = await call('POST', '/account/subaccount/', { name: 'Pied Piper', companyName: 'PP' });
    expect(created.status).toBe(201);
    expect(schemaErrors('SubAccount', created.body)).toEqual([]);
    const list = await call('GET', '/account/subaccount');
    expect(list.body.map((s: { name: string }) => s.name)).toEqual(['Default', 'Pied Piper']);
    expect((await call('GET', `/account/subaccount/${created.body.id}/`)).body.name).toBe('Pied Piper');
    expect((await call('PUT', `/account/subaccount/${created.body.id}`, { name: 'Piper' })).body.name).toBe('Piper');
    expect((await call('DELETE', `/account/subaccount/${created.body.id}`)).status).toBe(200);
    const defaultId = list.body[0].id;
    expect((await call('DELETE', `/account/subaccount/${defaultId}`)).status).toBe(406);
  });

  it('answers malformed JSON, oversized bodies and missing keys with JSON errors', async () => {
    expect(await call('POST', '/account/subaccount', '{"name":')).toMatchObject({
      status: 422,
      body: { code: 'MALFORMED_JSON' },
    });
    const huge = JSON.stringify({ name: 'x'.repeat(10_000_000) });
    expect(await call('POST', '/account/subaccount', huge)).toMatchObject({
      status: 413,
      body: { code: 'PAYLOAD_TOO_LARGE' },
    });
    expect(await call('GET', '/account/subaccount', undefined, { 'x-account-apikey': '' })).toMatchObject({
      status: 401,
    });
  });

  it('serves the OpenAPI document at /api/v1/openapi.json without a key', async () => {
    const response = await fetch(`${server.baseUrl}/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths['/subaccount/email'] ?? {})).toEqual(['post']);
  });

  it('routes a scheduled send and its cancel routes (docs/sending.md, "Scheduled sending")', async () => {
    const [defaultSub] = (await call('GET', '/account/subaccount')).body;
    const sub = { 'x-subaccount-apikey': defaultSub.apiKey };
    const past = await call(
      'POST',
      '/subaccount/email',
      {
        from: { email: 'a@example.com' },
        to: [{ email: 'b@example.org' }],
        subject: 's',
        textBody: 't',
        sendAt: '2000-01-01T00:00:00Z',
      },
      sub,
    );
    expect(past).toMatchObject({ status: 422, body: { code: 'SEND_AT_IN_PAST' } });
    expect(
      await call('DELETE', '/subaccount/email/00000000-0000-4000-8000-000000000000', undefined, sub),
    ).toMatchObject({ status: 406, body: { code: 'MESSAGE_NOT_FOUND' } });
    expect(
      await call('DELETE', '/subaccount/email/batch/00000000-0000-4000-8000-000000000000/', undefined, sub),
    ).toMatchObject({ status: 406, body: { code: 'BATCH_NOT_FOUND' } });
  });

  it('serves the dashboard at /dashboard, and signs in with the printed key', async () => {
    const origin = new URL(server.baseUrl).origin;
    const page = await fetch(`${origin}/dashboard`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('src="/dashboard/assets/app.js"');
    // Read whole: a body left unread holds its keep-alive connection open after the server exits.
    const script = await fetch(`${origin}/dashboard/assets/app.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).not.toBe('');
    const signIn = await fetch(`${origin}/dashboard/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ apiKey: server.accountKey }),
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const subAccounts = await fetch(`${origin}/dashboard/api/v1/account/subaccount`, { headers: { cookie } });
    expect(subAccounts.status).toBe(200);
    expect(((await subAccounts.json()) as { name: string }[]).map((s) => s.name)).toContain('Default');
  });
});

describe('the express example with a configured account key', () => {
  it('uses MAILPLANE_ACCOUNT_API_KEY and prints no key', async () => {
    const key = 'mpak_configuredconfiguredconfigured1';
    const server = await startExample('express', { MAILPLANE_ACCOUNT_API_KEY: key });
    try {
      expect(server.output()).not.toContain('shown once');
      const response = await fetch(`${server.baseUrl}/account/subaccount`, { headers: { 'x-account-apikey': key } });
      expect(response.status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

describe.each(['express', 'koa'] as const)('the %s example with its SMTP servers', (name) => {
  it('starts the relay and the bounce receiver from the environment, and both answer SMTP', async () => {
    const server = await startExample(name, {
      MAILPLANE_SMTP_PORT: '0',
      MAILPLANE_BOUNCE_PORT: '0',
      MAILPLANE_SMTP_MAX_CONNECTIONS_PER_ADDRESS: '2',
    });
    try {
      const portOf = (what: string) =>
        Number(new RegExp(`SMTP ${what}[^\\n]* listening on 127\\.0\\.0\\.1:(\\d+)`).exec(server.output())![1]);
      const relay = nodemailer.createTransport({
        host: '127.0.0.1',
        port: portOf('relay'),
        ignoreTLS: true,
        auth: { user: 'smtp_nobody', pass: 'wrong' },
      });
      await expect(relay.verify()).rejects.toMatchObject({ responseCode: 535 });
      const bounces = nodemailer.createTransport({
        host: '127.0.0.1',
        port: portOf('bounce and complaint receiver'),
        ignoreTLS: true,
      });
      await expect(
        bounces.sendMail({
          envelope: { from: 'MAILER-DAEMON@mx.example', to: ['someone@example.org'] },
          raw: 'Subject: x\r\n\r\nx\r\n',
        }),
      ).rejects.toMatchObject({ responseCode: 550 });
      // MAILPLANE_SMTP_MAX_CONNECTIONS_PER_ADDRESS reaches both listeners.
      for (const port of [portOf('relay'), portOf('bounce and complaint receiver')]) {
        const held = [await rawSmtp(port), await rawSmtp(port)];
        const refused = await rawSmtp(port);
        expect(refused.greeting).toBe('421 4.7.0 Too many connections from your address, try again later');
        for (const client of [...held, refused]) client.close();
      }
    } finally {
      await server.stop();
    }
  });
});
