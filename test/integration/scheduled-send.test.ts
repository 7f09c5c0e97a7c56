import { afterEach, describe, expect, it, vi } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { createMailplane, manualClock, silentLogger } from 'mailplane';
import { mxTransport } from '../../adapters/transport/smtp/index.js';
import { openKyselyStore } from 'mailplane/storage/kysely';
import { releaseScheduledSend } from '../../src/scheduling/scheduled-jobs.js';
import { DELIVER_SCHEDULED_JOB } from '../../src/jobs/kinds.js';
import { TEST_SECRET } from '../support/api.js';
import { pgUrl, storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, T0, type DeliveryEnv } from '../support/delivery-env.js';
import { sendBody } from '../support/sending.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const HOUR = 3_600_000;
const ns = (ms: number) => BigInt(ms) * 1_000_000n;
const types = (view: { events: Array<{ type: number }> }) => view.events.map((e) => e.type);
/** The exact digits of `sendAt` in a JSON text (the parsed body is lossy above 2^53). */
const sendAtDigits = (text: string) => [...text.matchAll(/"sendAt":(\d+)/g)].map((m) => m[1]);

describe.each(storeKinds)('scheduled sending (%s)', (kind) => {
  let env: DeliveryEnv;
  let receiver: WebhookReceiver | undefined;
  afterEach(async () => {
    await env?.close();
    await receiver?.close();
    receiver = undefined;
  });

  const post = (body: unknown) => env.api.call('POST', '/subaccount/email', { sub: env.key, body });
  const from = () => `news@${env.sender.domain.name}`;
  const cancel = (path: string, sub = env.key) => env.api.call('DELETE', `/subaccount/email/${path}`, { sub });
  /** Gives the runner time to run anything due; nothing scheduled later may have been sent meanwhile. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

  it('answers at once with the ids, shows the scheduled state and time, and delivers at sendAt (RFC 3339 and ns)', async () => {
    env = await startDeliveryEnv(kind);
    const at = T0 + HOUR;
    const rfc = await post(
      sendBody(from(), [`ada@${RCPT_DOMAIN}`], { sendAt: new Date(at).toISOString().replace('.000Z', 'Z') }),
    );
    expect(rfc.status).toBe(200);
    const [entry] = rfc.body;
    expect(entry).toMatchObject({ to: `ada@${RCPT_DOMAIN}`, batchId: expect.any(String) });
    expect(entry.errorCode).toBeUndefined();
    expect(sendAtDigits(rfc.text)).toEqual([ns(at).toString()]);
    // ns epoch as a JSON number, 30 minutes later.
    const byNs = await env.api.call('POST', '/subaccount/email', {
      sub: env.key,
      raw: JSON.stringify(sendBody(from(), [`bob@${RCPT_DOMAIN}`])).replace(/}$/, `,"sendAt":${ns(at + HOUR / 2)}}`),
    });
    expect(byNs.status).toBe(200);

    const view = await env.message(entry.messageId);
    expect(view.status).toBe('scheduled');
    expect(types(view)).toEqual([0]);
    const raw = await env.api.call('GET', `/account/message/${entry.messageId}`, { account: env.api.accountKey });
    expect(sendAtDigits(raw.text)).toEqual([ns(at).toString()]);
    // The activity API shows it too, and can select it by status.
    const listed = await env.api.call('GET', '/subaccount/message', { sub: env.key, query: { status: 'scheduled' } });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((m: { messageID: string }) => m.messageID)).toContain(entry.messageId);

    // Nothing is sent before its time, even with the runner awake.
    env.advance(HOUR - 1000);
    await settle();
    expect(env.sink.received).toHaveLength(0);
    expect((await env.message(entry.messageId)).status).toBe('scheduled');

    env.advance(1000);
    const delivered = await env.waitForStatus(entry.messageId, 'delivered');
    expect(types(delivered)).toEqual([0, 2]);
    expect(env.sink.received.map((m) => m.rcptTo)).toEqual([[`ada@${RCPT_DOMAIN}`]]);
    // Its delivery latency runs from sendAt, not from the hour it waited as it was meant to.
    const latency = await contextOf(env.api.mailplane).metrics.deliveryLatency.get();
    expect(latency.values.find((v) => v.metricName?.endsWith('_sum'))!.value).toBeLessThan(60);
    expect((await env.message(byNs.body[0].messageId)).status).toBe('scheduled');
    env.advance(HOUR / 2);
    await env.waitForStatus(byNs.body[0].messageId, 'delivered');
    const stats = await env.api.call('GET', '/subaccount/stat/aggregate', {
      sub: env.key,
      query: { from: '2026-05-01', to: '2026-05-02' },
    });
    expect(stats.body).toMatchObject({ processed: 2, delivered: 2, dropped: 0 });
  });

  it('cancels one message with its copies, or a whole request, with a Cancelled event to the activity log and webhooks; not twice, not after it started', async () => {
    receiver = await startWebhookReceiver();
    env = await startDeliveryEnv(kind, {}, { webhooks: { allowPrivateTargets: true, timeoutMs: 1000 } });
    const hook = await env.api.call('POST', '/account/webhook', {
      account: env.api.accountKey,
      body: { url: receiver.url, dropped: true },
    });
    expect(hook.status).toBe(200);
    const sendAt = ns(T0 + HOUR).toString();
    const first = await post({
      ...sendBody(from(), [`ada@${RCPT_DOMAIN}`, `bob@${RCPT_DOMAIN}`], { sendAt }),
      to: [{ email: `ada@${RCPT_DOMAIN}`, cc: [{ email: `cc@${RCPT_DOMAIN}` }] }, { email: `bob@${RCPT_DOMAIN}` }],
    });
    const second = await post(sendBody(from(), [`cy@${RCPT_DOMAIN}`, `dee@${RCPT_DOMAIN}`], { sendAt }));
    expect([first.status, second.status]).toEqual([200, 200]);
    const [ada, bob] = first.body;
    const copyId = ada.copies[0].messageId;

    // One message: it and its cc copy; the other recipient of the request stays scheduled.
    const one = await cancel(ada.messageId);
    expect(one.status).toBe(200);
    expect(one.body.batchId).toBe(ada.batchId);
    expect(one.body.cancelled.sort()).toEqual([ada.messageId, copyId].sort());
    const cancelledView = await env.message(ada.messageId);
    expect(cancelledView.status).toBe('cancelled');
    expect(types(cancelledView)).toEqual([0, 9]);
    expect((await env.message(copyId)).status).toBe('cancelled');
    expect((await env.message(bob.messageId)).status).toBe('scheduled');
    const again = await cancel(ada.messageId);
    expect(again.status).toBe(422);
    expect(again.body.code).toBe('MESSAGE_NOT_CANCELLABLE');

    // A whole request by its batch id.
    const whole = await cancel(`batch/${second.body[0].batchId}`);
    expect(whole.status).toBe(200);
    expect(whole.body.cancelled.sort()).toEqual(second.body.map((e: { messageId: string }) => e.messageId).sort());
    expect((await cancel(`batch/${second.body[0].batchId}`)).body.code).toBe('MESSAGE_NOT_CANCELLABLE');

    // Unknown ids: 406.
    for (const path of [
      '00000000-0000-4000-8000-000000000000',
      'not-an-id',
      'batch/00000000-0000-4000-8000-000000000000',
      'batch/nope',
    ]) {
      const unknown = await cancel(path);
      expect(unknown.status, path).toBe(406);
    }

    // The activity log lists the Cancelled events.
    const events = await env.api.call('GET', '/subaccount/event', { sub: env.key, query: { type: '9' } });
    expect(events.status).toBe(200);
    expect(events.body.items).toHaveLength(4);
    // And the webhooks with dropped on receive them (type 9), one per cancelled message.
    await vi.waitFor(() => expect(receiver!.received.length).toBeGreaterThanOrEqual(4), {
      timeout: 10_000,
      interval: 20,
    });
    expect(new Set(receiver.received.map((d) => d.json.event.type))).toEqual(new Set([9]));

    // At its time only bob is sent; once sent he cannot be cancelled.
    env.advance(HOUR);
    await env.waitForStatus(bob.messageId, 'delivered');
    await settle();
    expect(env.sink.received.map((m) => m.rcptTo)).toEqual([[`bob@${RCPT_DOMAIN}`]]);
    const late = await cancel(bob.messageId);
    expect(late.status).toBe(422);
    expect(late.body.code).toBe('MESSAGE_NOT_CANCELLABLE');
    // An unscheduled send is not cancellable either.
    const [now] = await env.send([`eve@${RCPT_DOMAIN}`]);
    expect((await cancel(now!.messageId)).body.code).toBe('MESSAGE_NOT_CANCELLABLE');
  });

  it('makes the time-dependent checks again at sendAt: suppressed meanwhile, domain no longer verified, sub-account blocked', async () => {
    env = await startDeliveryEnv(kind);
    const sendAt = ns(T0 + HOUR).toString();
    const [ok, suppressed] = (await post(sendBody(from(), [`ok@${RCPT_DOMAIN}`, `later@${RCPT_DOMAIN}`], { sendAt })))
      .body;
    const added = await env.api.call('POST', '/subaccount/suppression', {
      sub: env.key,
      body: { unsubscribe: [{ email: `later@${RCPT_DOMAIN}` }] },
    });
    expect(added.status).toBe(200);
    env.advance(HOUR);
    await env.waitForStatus(ok.messageId, 'delivered');
    const dropped = await env.waitForStatus(suppressed.messageId, 'dropped');
    expect(types(dropped)).toEqual([0, 1]);
    expect(dropped.events[1].eventMetadata).toMatchObject({ reason: 'SUPPRESSED' });

    // The domain loses its verification, then the sub-account is blocked.
    const [unverified] = (
      await post(sendBody(from(), [`dom@${RCPT_DOMAIN}`], { sendAt: ns(T0 + 2 * HOUR).toString() }))
    ).body;
    const [blocked] = (await post(sendBody(from(), [`blk@${RCPT_DOMAIN}`], { sendAt: ns(T0 + 3 * HOUR).toString() })))
      .body;
    await contextOf(env.api.mailplane).store.domains.updateVerification(
      env.sender.subAccount.id,
      env.sender.domain.id,
      {
        dkimVerified: false,
        verified: false,
        updated: 2n,
      },
    );
    env.advance(HOUR);
    const noDomain = await env.waitForStatus(unverified.messageId, 'dropped');
    expect(noDomain.events[1].eventMetadata).toMatchObject({ reason: 'SENDER_DOMAIN_NOT_VERIFIED' });
    await contextOf(env.api.mailplane).store.domains.updateVerification(
      env.sender.subAccount.id,
      env.sender.domain.id,
      {
        dkimVerified: true,
        verified: true,
        updated: 3n,
      },
    );
    const block = await env.api.call('PUT', `/account/subaccount/${env.sender.subAccount.id}`, {
      account: env.api.accountKey,
      body: { blocked: true, block_reason: 'billing' },
    });
    expect(block.status).toBe(200);
    env.advance(HOUR);
    const noSub = await env.waitForStatus(blocked.messageId, 'dropped');
    expect(noSub.events[1].eventMetadata).toMatchObject({ reason: 'SUBACCOUNT_BLOCKED' });
    expect(noSub.events[1].eventMetadata.description).toContain('billing');
    expect(env.sink.received.map((m) => m.rcptTo)).toEqual([[`ok@${RCPT_DOMAIN}`]]);
    const stats = await env.api.call('GET', '/subaccount/stat/aggregate', {
      sub: env.key,
      query: { from: '2026-05-01', to: '2026-05-02' },
    });
    expect(stats.body).toMatchObject({ processed: 4, delivered: 1, dropped: 3 });
  });

  it('refuses a sendAt in the past (beyond 60 s of skew), beyond 72 hours or malformed with a 422 and stores nothing; takes one within the skew', async () => {
    env = await startDeliveryEnv(kind);
    const cases: Array<[unknown, string]> = [
      [ns(T0 - 61_000).toString(), 'SEND_AT_IN_PAST'],
      [new Date(T0 - 3_600_000).toISOString(), 'SEND_AT_IN_PAST'],
      [ns(T0 + 72 * HOUR + 1000).toString(), 'SEND_AT_TOO_FAR'],
      ['2026-05-04T12:00:01+00:00', 'SEND_AT_TOO_FAR'],
      ['99999999999999999999', 'VALIDATION_FAILED'],
      ['2026-02-30T12:00:00Z', 'VALIDATION_FAILED'],
      ['tomorrow', 'VALIDATION_FAILED'],
      [-1, 'VALIDATION_FAILED'],
      [1.5, 'VALIDATION_FAILED'],
      [true, 'VALIDATION_FAILED'],
    ];
    for (const [sendAt, code] of cases) {
      const refused = await post(sendBody(from(), [`ada@${RCPT_DOMAIN}`], { sendAt }));
      expect(refused.status, String(sendAt)).toBe(422);
      expect(refused.body.code, String(sendAt)).toBe(code);
    }
    const listed = await env.api.call('GET', '/subaccount/message', { sub: env.key });
    expect(listed.body.items).toEqual([]);
    expect(await contextOf(env.api.mailplane).store.jobs.countByState(DELIVER_SCHEDULED_JOB)).toMatchObject({
      pending: 0,
      running: 0,
      dead: 0,
    });

    // Exactly 72 hours ahead is taken; 30 s in the past (clock skew) is taken and sent at once.
    expect((await post(sendBody(from(), [`far@${RCPT_DOMAIN}`], { sendAt: '2026-05-04T12:00:00Z' }))).status).toBe(200);
    const [skewed] = (await post(sendBody(from(), [`skew@${RCPT_DOMAIN}`], { sendAt: ns(T0 - 30_000).toString() })))
      .body;
    await env.waitForStatus(skewed.messageId, 'delivered');
  });

  it('lets exactly one of a cancel and the release racing at sendAt apply to each message', async () => {
    env = await startDeliveryEnv(kind);
    const ctx = contextOf(env.api.mailplane);
    for (let round = 0; round < 5; round++) {
      const [entry] = (
        await post(sendBody(from(), [`race${round}@${RCPT_DOMAIN}`], { sendAt: ns(ctx.clock.now() + HOUR).toString() }))
      ).body;
      const [cancelled] = await Promise.all([cancel(entry.messageId), releaseScheduledSend(ctx, entry.batchId)]);
      const view = await env.message(entry.messageId);
      if (cancelled.status === 200) {
        expect(view.status).toBe('cancelled');
        expect(types(view)).toEqual([0, 9]);
      } else {
        expect(cancelled.body.code).toBe('MESSAGE_NOT_CANCELLABLE');
        expect(view.status).not.toBe('cancelled');
        expect(types(view)).not.toContain(9);
      }
      // The job at sendAt finds nothing left to do either way.
      await releaseScheduledSend(ctx, entry.batchId);
      expect(types(await env.message(entry.messageId)).filter((t) => t === 9 || t === 1)).toHaveLength(
        cancelled.status === 200 ? 1 : 0,
      );
    }
  });

  it('keeps tenants apart: another sub-account cancels neither a message nor a request (406), and nothing changes', async () => {
    env = await startDeliveryEnv(kind);
    const [entry] = (await post(sendBody(from(), [`ada@${RCPT_DOMAIN}`], { sendAt: ns(T0 + HOUR).toString() }))).body;
    const other = await env.api.call('POST', '/account/subaccount', {
      account: env.api.accountKey,
      body: { name: 'other' },
    });
    for (const path of [entry.messageId, `batch/${entry.batchId}`]) {
      const refused = await cancel(path, other.body.apiKey);
      expect(refused.status).toBe(406);
    }
    expect((await env.message(entry.messageId)).status).toBe('scheduled');
  });
});

describe.skipIf(!pgUrl)('a scheduled send across a restart, on two nodes sharing PostgreSQL', () => {
  let env: DeliveryEnv | undefined;
  afterEach(async () => {
    await env?.close();
  });

  it('node A accepts and stops; node B, started later, delivers at sendAt', async () => {
    env = await startDeliveryEnv('postgres');
    const sendAt = T0 + 2 * HOUR;
    const [entry] = await env.send([`ada@${RCPT_DOMAIN}`], { sendAt: ns(sendAt).toString() });
    expect((await env.message(entry!.messageId)).status).toBe('scheduled');
    // Node A stops (its runner, transports and store) before the time comes.
    await env.api.mailplane.close();

    const clock = manualClock(sendAt - 1000);
    const store = await openKyselyStore({ url: env.api.url, maxConnections: 5 });
    const dns = env.dns;
    const nodeB = createMailplane({
      store,
      secret: TEST_SECRET,
      logger: silentLogger,
      clock,
      dns: { servers: [{ host: dns.host, port: dns.port }], timeoutMs: 5_000, retries: 1 },
      delivery: { mxPort: env.sink.port, socketTimeoutMs: 1500, greetingTimeoutMs: 1500, connectionTimeoutMs: 1500 },
      jobs: { pollIntervalMs: 25 },
      transport: (ctx) =>
        mxTransport({
          resolver: ctx.resolver,
          port: ctx.delivery.mxPort,
          ehloName: 'mta-b.mailplane.test',
          connectionTimeoutMs: ctx.delivery.connectionTimeoutMs,
          greetingTimeoutMs: ctx.delivery.greetingTimeoutMs,
          socketTimeoutMs: ctx.delivery.socketTimeoutMs,
        }),
    });
    try {
      nodeB.start();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(env.sink.received).toHaveLength(0);
      clock.advance(1000);
      contextOf(nodeB).jobs.notify();
      await vi.waitFor(
        async () =>
          expect((await contextOf(nodeB).store.messages.getForDelivery(entry!.messageId))?.message.status).toBe(
            'delivered',
          ),
        { timeout: 15_000, interval: 20 },
      );
      expect(env.sink.received.map((m) => [m.ehlo, m.rcptTo])).toEqual([
        ['mta-b.mailplane.test', [`ada@${RCPT_DOMAIN}`]],
      ]);
    } finally {
      await nodeB.close();
    }
  });
});
