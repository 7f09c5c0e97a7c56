/**
 * Structured logs through `pinoLogger`, captured from a stream: one access line per API request
 * with its request id echoed in `X-Request-Id`, one line per SMTP relay session on close, and no
 * key or password in any line. Real SQLite and PostgreSQL, a real relay on a loopback port.
 */
import nodemailer from 'nodemailer';
import { contextOf } from '../../src/instance-context.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createBounceReceiver, createSmtpRelay, pinoLogger } from 'mailplane';
import { createTestApi } from '../support/api.js';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv } from '../support/delivery-env.js';
import { dsn } from '../support/reports.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A pino logger writing into an array of parsed lines. */
function capture(level = 'info') {
  const raw: string[] = [];
  const logger = pinoLogger({ level, destination: { write: (line: string) => void raw.push(line) } });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the JSON lines
  const lines = () => raw.map((line) => JSON.parse(line) as Record<string, any>);
  return { logger, raw, lines };
}

describe.each(storeKinds)('access logs on %s', (kind) => {
  it('writes one JSON line per request with route pattern, status, duration and the echoed request id, never the key', async () => {
    const { logger, raw, lines } = capture();
    const api = await createTestApi(kind, { logger });
    cleanups.push(() => api.close());

    const listed = await api.call('GET', '/account/subaccount', {
      account: api.accountKey,
      headers: { 'x-request-id': 'req-42.a_b' },
    });
    expect(listed.status).toBe(200);
    expect(listed.headers['x-request-id']).toBe('req-42.a_b');
    const missing = await api.call('GET', '/account/subaccount/987654', {
      account: api.accountKey,
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(missing.status).toBe(406);
    const generated = missing.headers['x-request-id']!;
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);
    const long = await api.call('GET', '/account/subaccount', {
      account: api.accountKey,
      headers: { 'x-request-id': 'x'.repeat(65) },
    });
    expect(long.headers['x-request-id']).not.toBe('x'.repeat(65));
    const unauthorized = await api.call('GET', '/account/subaccount', {
      account: 'mpak_wrongwrongwrongwrongwrongwrong1',
    });
    expect(unauthorized.status).toBe(401);

    const access = lines().filter((line) => line.message === 'http request');
    expect(access).toHaveLength(4);
    expect(access[0]).toMatchObject({
      level: 'info',
      method: 'GET',
      route: '/account/subaccount',
      status: 200,
      requestId: 'req-42.a_b',
    });
    expect(typeof access[0]!.durationMs).toBe('number');
    expect(typeof access[0]!.time).toBe('string');
    expect(access[1]).toMatchObject({ route: '/account/subaccount/:subaccount_id', status: 406, requestId: generated });
    expect(access[3]).toMatchObject({ status: 401 });
    const all = raw.join('');
    expect(all).not.toContain(api.accountKey);
    expect(all).not.toContain('mpak_wrongwrongwrongwrongwrongwrong1');
    expect(all).not.toContain('987654');
  });

  it('writes one line per relay session on close: client, authenticated, messages accepted, duration; never the password', async () => {
    const { logger, raw, lines } = capture();
    const env = await startDeliveryEnv(kind, {}, { logger });
    cleanups.push(() => env.close());
    const relay = createSmtpRelay(env.api.mailplane, {});
    cleanups.push(() => relay.close());
    const { port } = await relay.listen(0, '127.0.0.1');
    const auth = env.sender.subAccount.smtpAuths[0]!;
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port,
      secure: false,
      ignoreTLS: true,
      auth: { user: auth.username, pass: auth.password },
    });
    await transport.sendMail({
      from: `news@${env.sender.domain.name}`,
      to: `ann@${RCPT_DOMAIN}`,
      subject: 'Hi',
      text: 'secret body text',
    });
    transport.close();
    const bad = nodemailer.createTransport({
      host: '127.0.0.1',
      port,
      secure: false,
      ignoreTLS: true,
      auth: { user: auth.username, pass: 'not-the-password' },
    });
    await expect(
      bad.sendMail({ from: `news@${env.sender.domain.name}`, to: `ann@${RCPT_DOMAIN}`, text: 'x' }),
    ).rejects.toThrow();
    bad.close();

    let sessions: Array<Record<string, unknown>> = [];
    await expect
      .poll(() => (sessions = lines().filter((line) => line.message === 'smtp relay: session closed')).length, {
        timeout: 10_000,
      })
      .toBe(2);
    expect(sessions[0]).toMatchObject({ level: 'info', client: '127.0.0.1', authenticated: true, messagesAccepted: 1 });
    expect(sessions[1]).toMatchObject({ authenticated: false, messagesAccepted: 0 });
    expect(typeof sessions[0]!.durationMs).toBe('number');
    const all = raw.join('');
    expect(all).not.toContain(auth.password);
    expect(all).not.toContain('not-the-password');
    expect(all).not.toContain('secret body text');

    const metrics = (
      await env.api.mailplane.handleMetrics({
        method: 'GET',
        path: '/metrics',
        headers: {},
        query: new URLSearchParams(),
      })
    ).body;
    expect(metrics).toContain('mailplane_smtp_sessions_total{listener="smtp relay"} 2');
    expect(metrics).toContain('mailplane_smtp_auth_failures_total 1');
  });

  it('writes one line per bounce-receiver session, and counts the report by kind and outcome', async () => {
    const { logger, lines } = capture();
    const env = await startDeliveryEnv(kind, {}, { logger });
    cleanups.push(() => env.close());
    const receiver = createBounceReceiver(env.api.mailplane, {});
    cleanups.push(() => receiver.close());
    const { port } = await receiver.listen(0, '127.0.0.1');
    const [entry] = await env.send([`gone@${RCPT_DOMAIN}`]);
    await env.waitForStatus(entry!.messageId, 'delivered');
    const domain = (await contextOf(env.api.mailplane).store.domains.get(
      env.sender.subAccount.id,
      env.sender.domain.id,
    ))!;
    const verp = `b+${entry!.messageId}@${domain.returnPathHost}`;
    const raw = dsn(verp, `gone@${RCPT_DOMAIN}`, 'failed', '5.1.1', '550 5.1.1 User unknown');
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port, ignoreTLS: true });
    await transport.sendMail({ envelope: { from: 'MAILER-DAEMON@mx.rcpt.test', to: [verp] }, raw });
    transport.close();
    await env.waitForStatus(entry!.messageId, 'hard_bounced');

    await expect
      .poll(() => lines().filter((line) => line.message === 'bounce receiver: session closed').length, {
        timeout: 10_000,
      })
      .toBe(1);
    const session = lines().find((line) => line.message === 'bounce receiver: session closed')!;
    expect(session).toMatchObject({ client: '127.0.0.1', authenticated: false, messagesAccepted: 1 });
    const metrics = (
      await env.api.mailplane.handleMetrics({
        method: 'GET',
        path: '/metrics',
        headers: {},
        query: new URLSearchParams(),
      })
    ).body;
    expect(metrics).toContain('mailplane_bounce_reports_total{kind="failed",outcome="hard-bounced"} 1');
    expect(metrics).toContain('mailplane_smtp_sessions_total{listener="bounce receiver"} 1');
  });

  it('writes nothing below the configured level, and refuses an unknown level', () => {
    const { logger, raw } = capture('warn');
    logger.info('quiet', {});
    logger.warn('loud', { n: 1 });
    expect(raw).toHaveLength(1);
    expect(() => pinoLogger({ level: 'verbose' })).toThrow(/unknown log level "verbose"/);
  });
});
