/**
 * Webhook event delivery end to end: a send through the API, delivery to a real SMTP sink, and the
 * events POSTed to a real HTTP receiver on loopback, signed; switches, pausing, tenant isolation,
 * retries under the manual clock, the private-target check (literal and resolved through the test
 * DNS server), and a receiver that never answers.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { verifyWebhookSignature } from 'mailplane';
import { unsubscribeUrl } from '../../src/tracking/links.js';
import { WEBHOOK_EVENTS_JOB, WEBHOOK_RETRY_JOB } from '../../src/jobs/kinds.js';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, T0, type DeliveryEnv } from '../support/delivery-env.js';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../support/webhook-receiver.js';
import { useTestApi } from '../support/api.js';
import { createSender, sendBody } from '../support/sending.js';

const MINUTE = 60_000;

describe.each(storeKinds)('webhook event delivery (%s)', (kind) => {
  let env: DeliveryEnv;
  let receiver: WebhookReceiver;
  afterEach(async () => {
    await env?.close();
    await receiver?.close();
  });

  async function start(
    webhooks: Parameters<typeof startDeliveryEnv>[2] = { webhooks: { allowPrivateTargets: true, timeoutMs: 1000 } },
  ) {
    receiver = await startWebhookReceiver();
    env = await startDeliveryEnv(kind, {}, webhooks);
  }

  /** Registers a webhook of the test account; answers its id and signing secret. */
  async function register(
    switches: Record<string, boolean>,
    url = receiver.url,
    account = env.api.accountKey,
  ): Promise<{ id: number; secret: string }> {
    const created = await env.api.call('POST', '/account/webhook', { account, body: { url, ...switches } });
    expect(created.status).toBe(200);
    return created.body;
  }

  const types = (deliveries: ReceivedDelivery[]) => deliveries.map((d) => d.json.event.type).sort();
  const waitForDeliveries = (count: number) =>
    vi.waitFor(() => expect(receiver.received.length).toBeGreaterThanOrEqual(count), { timeout: 10_000, interval: 20 });
  /** Jobs of a kind by state (a completed job is deleted, so it counts nowhere). */
  const jobsOf = (kindName: string) => contextOf(env.api.mailplane).store.jobs.countByState(kindName);
  const waitForRetries = (state: Partial<Record<'pending' | 'running' | 'dead', number>>) =>
    vi.waitFor(async () => expect(await jobsOf(WEBHOOK_RETRY_JOB)).toMatchObject(state), {
      timeout: 10_000,
      interval: 20,
    });

  it('posts Processed and Delivered, signed with the secret, carrying the send headers and groups', async () => {
    await start();
    const { secret } = await register({ processed: true, delivered: true });
    const [entry] = await env.send([`ada@${RCPT_DOMAIN}`], {
      headers: { 'X-Tenant': 'tenant-7' },
      groups: ['welcome'],
    });
    await env.waitForStatus(entry!.messageId, 'delivered');
    await waitForDeliveries(2);
    expect(types(receiver.received)).toEqual([0, 2]);
    const ids = new Set<string>();
    for (const delivery of receiver.received) {
      expect(delivery.headers['content-type']).toBe('application/json');
      const verdict = verifyWebhookSignature(
        secret,
        delivery.headers['x-mailplane-signature'] as string,
        delivery.body,
        300,
        Math.floor(T0 / 1000),
      );
      expect(verdict.ok).toBe(true);
      expect(
        verifyWebhookSignature(
          'whsec_not-the-secret',
          delivery.headers['x-mailplane-signature'] as string,
          delivery.body,
          300,
          Math.floor(T0 / 1000),
        ).ok,
      ).toBe(false);
      const { event, emailMessage } = delivery.json;
      expect(event.messageID).toBe(entry!.messageId);
      expect(event.eventID).toMatch(/^[0-9a-f-]{36}$/);
      ids.add(event.eventID);
      expect(emailMessage).toMatchObject({
        messageID: entry!.messageId,
        from: { email: `news@${env.sender.domain.name}` },
        to: [{ email: `ada@${RCPT_DOMAIN}` }],
        headers: { 'X-Tenant': 'tenant-7' },
        groups: ['welcome'],
      });
    }
    expect(ids.size).toBe(2);
    const delivered = receiver.received.find((d) => d.json.event.type === 2)!;
    expect(delivered.json.event.eventMetadata.smtpCode).toBe(250);
    // Nanosecond timestamps are written digit for digit, not rounded through a double.
    expect(delivered.body).toMatch(/"submittedAt":\d{19}/);
  });

  it('posts HardBounced with the SMTP reply, and Unsubscribed once when the recipient uses the link', async () => {
    await start();
    await register({ hardBounced: true, unsubscribed: true });
    env.sink.behave({ rcpt: ['550 5.1.1 no such user'] });
    const [bounced] = await env.send([`gone@${RCPT_DOMAIN}`]);
    await env.waitForStatus(bounced!.messageId, 'hard_bounced');
    await waitForDeliveries(1);
    expect(receiver.received[0]!.json.event).toMatchObject({
      type: 4,
      messageID: bounced!.messageId,
      eventMetadata: { smtpCode: 550 },
    });
    expect(receiver.received[0]!.json.event.eventMetadata.smtpDescription).toContain('no such user');
    env.sink.behave({});
    const [read] = await env.send([`reader@${RCPT_DOMAIN}`]);
    await env.waitForStatus(read!.messageId, 'delivered');
    const link = new URL(unsubscribeUrl(contextOf(env.api.mailplane), read!.messageId));
    const follow = () =>
      env.api.mailplane.handleLinks({
        method: 'POST',
        path: link.pathname.replace(/^\/t/, ''),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        query: new URLSearchParams(),
        rawBody: 'List-Unsubscribe=One-Click',
      });
    expect((await follow()).status).toBe(200);
    expect((await follow()).status).toBe(200);
    await waitForDeliveries(2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(types(receiver.received)).toEqual([4, 7]);
    expect(receiver.received[1]!.json.event.messageID).toBe(read!.messageId);
  });

  it("posts a cc copy's HardBounced as the copy's own event, naming the recipient's message it is a copy of", async () => {
    await start();
    await register({ hardBounced: true, delivered: true });
    env.sink.behave({ rcptFor: { [`carl@${RCPT_DOMAIN}`]: ['550 5.1.1 no such user'] } });
    const [entry] = (await env.send([`ada@${RCPT_DOMAIN}`], {
      to: [{ email: `ada@${RCPT_DOMAIN}`, cc: [{ email: `carl@${RCPT_DOMAIN}` }] }],
    })) as unknown as Array<{ messageId: string; copies: Array<{ messageId: string }> }>;
    const copyId = entry!.copies[0]!.messageId;
    await env.waitForStatus(copyId, 'hard_bounced');
    await env.waitForStatus(entry!.messageId, 'delivered');
    await waitForDeliveries(2);
    const bounce = receiver.received.find((d) => d.json.event.type === 4)!.json;
    expect(bounce.event).toMatchObject({ messageID: copyId, to: `carl@${RCPT_DOMAIN}` });
    expect(bounce.emailMessage).toMatchObject({
      messageID: copyId,
      to: [{ email: `carl@${RCPT_DOMAIN}` }],
      copyOf: { messageID: entry!.messageId, kind: 'cc' },
    });
    const delivered = receiver.received.find((d) => d.json.event.type === 2)!.json;
    expect(delivered.event.messageID).toBe(entry!.messageId);
    expect(delivered.emailMessage.copyOf).toBeUndefined();
  });

  it('sends only the switched-on events, nothing to a paused webhook, and nothing to another account', async () => {
    await start();
    const other = await env.api.mailplane.createAccount({ name: 'other tenant' });
    const otherReceiver = await startWebhookReceiver();
    try {
      await register({ processed: true, delivered: true }, otherReceiver.url, other.apiKey);
      await register({ delivered: true });
      const paused = await register({ processed: true, delivered: true }, `${receiver.url}?paused`);
      expect(
        (
          await env.api.call('PUT', `/account/webhook/${paused.id}`, {
            account: env.api.accountKey,
            body: { enabled: false },
          })
        ).status,
      ).toBe(200);
      const [entry] = await env.send([`bob@${RCPT_DOMAIN}`]);
      await env.waitForStatus(entry!.messageId, 'delivered');
      await waitForDeliveries(1);
      // Give a stray delivery time to show up before asserting there is none.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(types(receiver.received)).toEqual([2]);
      expect(receiver.received[0]!.json.event.messageID).toBe(entry!.messageId);
      expect(otherReceiver.received).toEqual([]);
    } finally {
      await otherReceiver.close();
    }
  });

  it('retries a failed POST on its schedule with the same event and a fresh signature, then stops when it succeeds', async () => {
    await start();
    const { secret } = await register({ delivered: true });
    receiver.answer(500, 503);
    const [entry] = await env.send([`dave@${RCPT_DOMAIN}`]);
    await env.waitForStatus(entry!.messageId, 'delivered');
    await waitForDeliveries(1);
    await waitForRetries({ pending: 1 });
    // Not before the first delay (1 minute).
    env.advance(30_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toHaveLength(1);
    env.advance(30_000);
    await waitForDeliveries(2);
    // The failed retry has rescheduled itself (5 minutes from its attempt) before the clock moves on.
    await waitForRetries({ pending: 1, running: 0 });
    env.advance(5 * MINUTE);
    await waitForDeliveries(3);
    const [first, second, third] = receiver.received;
    expect(new Set([first, second, third].map((d) => d!.json.event.eventID)).size).toBe(1);
    expect(third!.body).toBe(first!.body);
    expect(third!.headers['x-mailplane-signature']).not.toBe(first!.headers['x-mailplane-signature']);
    expect(
      verifyWebhookSignature(
        secret,
        third!.headers['x-mailplane-signature'] as string,
        third!.body,
        300,
        Math.floor(env.clock.now() / 1000),
      ).ok,
    ).toBe(true);
    await waitForRetries({ pending: 0, running: 0, dead: 0 });
    env.advance(24 * 60 * MINUTE);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toHaveLength(3);
  });

  it('gives up after eight attempts over about a day, with the last error logged', async () => {
    const errors: Array<{ message: string; fields: Record<string, unknown> }> = [];
    const logger = {
      info: () => {},
      warn: () => {},
      error: (message: string, fields: Record<string, unknown> = {}) => void errors.push({ message, fields }),
    };
    await start({ logger, webhooks: { allowPrivateTargets: true, timeoutMs: 1000 } });
    await register({ delivered: true });
    receiver.answer(...Array<number>(20).fill(500));
    const [entry] = await env.send([`erin@${RCPT_DOMAIN}`]);
    await env.waitForStatus(entry!.messageId, 'delivered');
    await waitForDeliveries(1);
    for (let attempt = 2; attempt <= 8; attempt++) {
      await waitForRetries({ pending: 1, running: 0 });
      env.advance(15 * 60 * MINUTE);
      await waitForDeliveries(attempt);
    }
    await waitForRetries({ pending: 0, running: 0, dead: 1 });
    expect(errors).toContainEqual({
      message: 'job failed permanently',
      fields: expect.objectContaining({
        kind: WEBHOOK_RETRY_JOB,
        error: expect.stringMatching(/gave up after 8 attempts: HTTP 500/),
      }),
    });
    env.advance(24 * 60 * MINUTE);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toHaveLength(8);
  });

  it('retries a receiver that never answers, after the timeout', async () => {
    await start({ webhooks: { allowPrivateTargets: true, timeoutMs: 300 } });
    await register({ delivered: true });
    receiver.answer('stall');
    const [entry] = await env.send([`fay@${RCPT_DOMAIN}`]);
    await env.waitForStatus(entry!.messageId, 'delivered');
    await waitForRetries({ pending: 1 });
    env.advance(MINUTE);
    await waitForDeliveries(2);
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
  });

  it('refuses private targets by default, literal or resolved, without connecting', async () => {
    const warnings: Array<Record<string, unknown>> = [];
    const logger = {
      info: () => {},
      error: () => {},
      warn: (_message: string, fields?: Record<string, unknown>) => void warnings.push(fields ?? {}),
    };
    await start({ logger });
    env.dns.set('hooks.tenant.test', 'A', ['127.0.0.1']);
    await register({ delivered: true });
    await register({ delivered: true }, `http://hooks.tenant.test:${receiver.port}/hook`);
    const [entry] = await env.send([`gus@${RCPT_DOMAIN}`]);
    await env.waitForStatus(entry!.messageId, 'delivered');
    await vi.waitFor(
      () =>
        expect(warnings.filter((w) => typeof w.error === 'string' && /target refused/.test(w.error))).toHaveLength(2),
      { timeout: 10_000, interval: 20 },
    );
    expect(warnings.map((w) => w.error).sort()).toEqual([
      'target refused: hooks.tenant.test resolves to loopback address 127.0.0.1',
      'target refused: loopback address',
    ]);
    expect(receiver.received).toEqual([]);
    expect(await jobsOf(WEBHOOK_RETRY_JOB)).toMatchObject({ pending: 0, running: 0, dead: 0 });
  });
});

describe.each(storeKinds)('the webhook outbox (%s)', (kind) => {
  // Not started: the queued jobs stay where the outbox put them.
  const api = useTestApi(kind);

  it('queues events in the accepting transaction only while the account has a webhook for them', async () => {
    const sender = await createSender(api, 'outbox', 'sender.test');
    const pending = async () => (await contextOf(api.mailplane).store.jobs.countByState(WEBHOOK_EVENTS_JOB)).pending;
    const send = async () =>
      expect(
        (
          await api.call('POST', '/subaccount/email', {
            sub: sender.subAccount.apiKey,
            body: sendBody('news@sender.test', ['a@x.test', 'b@x.test']),
          })
        ).status,
      ).toBe(200);
    await send();
    expect(await pending()).toBe(0);
    const hook = await api.call('POST', '/account/webhook', {
      account: api.accountKey,
      body: { url: 'https://hooks.example/in', processed: true },
    });
    await send();
    expect(await pending()).toBe(1);
    // Only Delivered wanted: the accepted messages' Processed events are not queued.
    expect(
      (
        await api.call('PUT', `/account/webhook/${hook.body.id}`, {
          account: api.accountKey,
          body: { processed: false, delivered: true },
        })
      ).status,
    ).toBe(200);
    await send();
    expect(await pending()).toBe(1);
  });
});
