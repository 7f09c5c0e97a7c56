/**
 * The storage and transport seams proven end to end: mailplane on the in-memory store and the
 * capture transport (both from `mailplane/testing`), driven through its router. No database, no
 * socket: accept -> delivery job -> captured message -> Delivered status, events, stats.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import {
  createMailplane,
  manualClock,
  nowNs,
  silentLogger,
  systemClock,
  type HttpRequest,
  type Mailplane,
} from 'mailplane';
import { captureTransport, createMemoryStore, type CaptureTransport } from 'mailplane/testing';

const SECRET = 'memory-store-pipeline-secret-0123456789abcdef';
const T0 = Date.UTC(2026, 4, 1, 12);

async function call(
  mailplane: Mailplane,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
) {
  const request: HttpRequest = {
    method,
    path,
    headers: { 'content-type': 'application/json', ...headers },
    query: new URLSearchParams(),
    rawBody: body === undefined ? '' : JSON.stringify(body),
  };
  const response = await mailplane.handle(request);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the JSON shapes
  return { status: response.status, body: JSON.parse(response.body) as any };
}

describe('mailplane on the in-memory store with the capture transport', () => {
  let mailplane: Mailplane | undefined;
  afterEach(async () => {
    await mailplane?.close();
    mailplane = undefined;
  });

  async function start(transport: CaptureTransport) {
    const instance = createMailplane({
      store: createMemoryStore(),
      secret: SECRET,
      transport,
      clock: manualClock(T0),
      logger: silentLogger,
      jobs: { pollIntervalMs: 10 },
    });
    mailplane = instance;
    const { apiKey: accountKey } = await instance.createAccount({ name: 'memory' });
    const account = { 'x-account-apikey': accountKey };
    const sub = await call(instance, 'POST', '/account/subaccount', account, { name: 'shop' });
    expect(sub.status).toBe(201);
    const key = { 'x-subaccount-apikey': sub.body.apiKey as string };
    const domain = await call(instance, 'POST', '/subaccount/domain', key, { name: 'shop.test' });
    expect(domain.status).toBe(200);
    // Stands in for the DNS check: the domain is verified, so its mail is signed and sent.
    await contextOf(instance).store.domains.updateVerification(sub.body.id, domain.body.id, {
      dkimVerified: true,
      verified: true,
      updated: 1n,
    });
    instance.start();
    const send = (to: string[]) =>
      call(instance, 'POST', '/subaccount/email', key, {
        from: { email: 'news@shop.test', name: 'Shop' },
        to: to.map((email) => ({ email, customFields: { name: email.split('@')[0]! } })),
        subject: 'Hello {{name}}',
        textBody: 'Hi {{name}}',
      });
    const message = async (id: string) => (await call(instance, 'GET', `/account/message/${id}`, account)).body;
    return { instance, send, message, account, subAccountId: sub.body.id as number };
  }

  it('accepts over the router, delivers through the transport and reports Delivered', async () => {
    const transport = captureTransport();
    const { send, message } = await start(transport);
    const accepted = await send(['ada@rcpt.test']);
    expect(accepted.status).toBe(200);
    const [entry] = accepted.body as Array<{ messageId: string; to: string }>;

    const [captured] = await transport.waitFor(1);
    expect(captured!.id).toBe(entry!.messageId);
    expect(captured!.envelope.to).toEqual(['ada@rcpt.test']);
    expect(captured!.envelope.from).toMatch(/@.*shop\.test$/);
    const raw = captured!.raw.toString('utf8');
    expect(raw).toMatch(/^DKIM-Signature:[\s\S]*?\bd=shop\.test;/m);
    expect(raw).toMatch(/^Subject: Hello ada$/m);
    expect(raw).toContain('Hi ada');

    await vi.waitFor(
      async () => {
        const view = await message(entry!.messageId);
        expect(view.status).toBe('delivered');
        expect(view.events.map((e: { type: number }) => e.type)).toEqual([0, 2]);
      },
      { timeout: 10_000, interval: 10 },
    );
  });

  it('answers the outcome configured per recipient: a hard bounce suppresses the address', async () => {
    const transport = captureTransport({ outcomes: { 'Gone@rcpt.test': 'hard' } });
    const { instance, send, message, subAccountId } = await start(transport);
    const accepted = await send(['ok@rcpt.test', 'gone@rcpt.test']);
    const byAddress = new Map(
      (accepted.body as Array<{ messageId: string; to: string }>).map((e) => [e.to, e.messageId]),
    );
    await transport.waitFor(2);
    expect(transport.to('gone@rcpt.test')[0]!.result).toMatchObject({ kind: 'hard', smtpCode: 550 });
    await vi.waitFor(
      async () => {
        expect((await message(byAddress.get('gone@rcpt.test')!)).status).toBe('hard_bounced');
        expect((await message(byAddress.get('ok@rcpt.test')!)).status).toBe('delivered');
      },
      { timeout: 10_000, interval: 10 },
    );
    expect(
      await contextOf(instance).store.suppressions.isSuppressed(subAccountId, 'gone@rcpt.test', nowNs(systemClock)),
    ).toBe(true);
  });
});
