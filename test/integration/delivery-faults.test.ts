import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { openKyselyStore } from '../../adapters/storage/kysely/index.js';
import { createMailplane, silentLogger } from 'mailplane';
import { mxTransport } from '../../adapters/transport/smtp/index.js';
import { TEST_SECRET } from '../support/api.js';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';
import type { SinkBehaviour } from '../support/smtp-sink.js';

describe.each(storeKinds)('delivery against misbehaving servers (%s)', (kind) => {
  let env: DeliveryEnv;
  beforeEach(async () => {
    env = await startDeliveryEnv(kind);
  });
  afterEach(() => env.close());

  /** Sends one message under `behaviour`, waits for its first attempt, then checks the worker still delivers. */
  async function firstAttemptUnder(behaviour: SinkBehaviour) {
    env.sink.behave(behaviour);
    const [entry] = await env.send([`x@${RCPT_DOMAIN}`]);
    const view = await env.waitForMessage(entry!.messageId, (v) => expect(v.attempt).toBe(1));
    env.sink.behave({});
    const [next] = await env.send([`y@${RCPT_DOMAIN}`]);
    await env.waitForStatus(next!.messageId, 'delivered');
    return view;
  }

  it.each<[string, SinkBehaviour, RegExp]>([
    ['a connection dropped after the data', { data: 'drop' }, /ECONNECTION|ESOCKET|closed|ended/i],
    ['a server that stalls after the data', { data: 'stall' }, /ETIMEDOUT|timeout/i],
  ])('%s is a SoftBounced with the failure recorded, and the worker keeps working', async (_name, behaviour, text) => {
    const view = await firstAttemptUnder(behaviour);
    expect(view.status).toBe('deferred');
    expect(view.events.map((e: { type: number }) => e.type)).toEqual([0, 3]);
    expect(view.events[1].smtpDescription).toMatch(text);
  });

  it.each<[string, SinkBehaviour]>([
    ['a greeting that never comes', { greeting: 'stall' }],
    ['garbage instead of a greeting', { greeting: 'garbage' }],
    ['a 421 greeting', { greeting: ['421 4.3.2 Service shutting down'] }],
  ])(
    "%s, before the message's transaction, is no retry: the message waits uncounted, then is delivered",
    async (_name, behaviour) => {
      env.sink.behave(behaviour);
      const [entry] = await env.send([`x@${RCPT_DOMAIN}`]);
      const jobs = contextOf(env.api.mailplane).store.jobs;
      // The attempt ended in a wait: a deliver-message job, not a recorded bounce.
      await vi.waitFor(async () => expect((await jobs.countByState('deliver-message')).pending).toBe(1), {
        timeout: 20_000,
        interval: 50,
      });
      const waiting = await env.message(entry!.messageId);
      expect(waiting.status).toBe('queued');
      expect(waiting.events.map((e: { type: number }) => e.type)).toEqual([0]);
      env.sink.behave({});
      env.advance(contextOf(env.api.mailplane).config.delivery.busyRetryDelayMs * 2);
      const delivered = await env.waitForStatus(entry!.messageId, 'delivered');
      expect(delivered.events.map((e: { type: number }) => e.type)).toEqual([0, 2]);
    },
  );

  it('a multi-line 5xx reply is recorded whole and decides a hard bounce', async () => {
    const view = await firstAttemptUnder({
      rcpt: [
        '550-5.1.1 The email account that you tried to reach does not exist.',
        '550-5.1.1 Please check the address',
        '550 5.1.1 and try again.',
      ],
    });
    expect(view.status).toBe('hard_bounced');
    expect(view.events[1].smtpDescription).toContain('does not exist');
    expect(view.events[1].smtpDescription).toContain('and try again');
  });

  it('a failed STARTTLS handshake is retried in plain text and delivered', async () => {
    env.sink.behave({ starttls: 'fail' });
    const [entry] = await env.send([`tls@${RCPT_DOMAIN}`]);
    await env.waitForStatus(entry!.messageId, 'delivered');
    expect(env.sink.received.at(-1)!.tls).toBe(false);
  });

  it('an MX that names the domain itself is followed to its A record; a null MX and a missing domain are hard bounces', async () => {
    env.dns.set('self.test', 'MX', [{ exchange: 'self.test', preference: 0 }]);
    env.dns.set('self.test', 'A', ['127.0.0.1']);
    env.dns.set('nomail.test', 'MX', [{ exchange: '.', preference: 0 }]);
    env.dns.set('noaddr.test', 'MX', [{ exchange: 'noaddr.test', preference: 0 }]);
    const [self, nullMx, missing, noAddress] = await env.send([
      'a@self.test',
      'b@nomail.test',
      'c@missing.test',
      'd@noaddr.test',
    ]);
    await env.waitForStatus(self!.messageId, 'delivered');
    const n = await env.waitForStatus(nullMx!.messageId, 'hard_bounced');
    expect(n.events[1].smtpDescription).toMatch(/null MX/);
    const m = await env.waitForStatus(missing!.messageId, 'hard_bounced');
    expect(m.events[1].smtpDescription).toMatch(/NXDOMAIN/);
    await env.waitForStatus(noAddress!.messageId, 'hard_bounced');
  });

  it('a DNS server that fails is a soft bounce', async () => {
    env.dns.behave('flaky.test', 'servfail');
    const [entry] = await env.send(['a@flaky.test']);
    const view = await env.waitForMessage(entry!.messageId, (v) => expect(v.attempt).toBe(1));
    expect(view.status).toBe('deferred');
    expect(view.events[1].smtpDescription).toMatch(/servfail/);
  });

  it('a shutdown while the server withholds its reply hands the message back unrecorded; the next instance delivers it', async () => {
    await env.close();
    // A reply timeout far beyond the test's: only the shutdown can end the stalled attempt.
    const problems: string[] = [];
    const record = (message: string, fields?: Record<string, unknown>) =>
      problems.push(`${message} ${JSON.stringify(fields ?? {})}`);
    const logger = { info: () => {}, warn: record, error: record };
    env = await startDeliveryEnv(kind, { socketTimeoutMs: 300_000 }, { shutdownGraceMs: 100, logger });
    env.sink.behave({ data: 'stall' });
    const [entry] = await env.send([`slow@${RCPT_DOMAIN}`]);
    await vi.waitFor(() => expect(env.sink.stalls).toBe(1), { timeout: 10_000, interval: 20 });
    await env.api.mailplane.close();
    // Nothing half-done: the attempt did not go on to write its outcome into a closing store.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(problems).toEqual([]);

    const store = await openKyselyStore({ url: env.api.url });
    const next = createMailplane({
      store,
      secret: TEST_SECRET,
      logger: silentLogger,
      clock: env.clock,
      dns: contextOf(env.api.mailplane).config.dns,
      delivery: contextOf(env.api.mailplane).config.delivery,
      jobs: { pollIntervalMs: 25 },
      transport: (ctx) => mxTransport({ resolver: ctx.resolver, port: ctx.delivery.mxPort }),
    });
    try {
      const found = await store.messages.getForDelivery(entry!.messageId);
      // Not a soft bounce: no attempt counted, no event, still queued for the next worker.
      expect(found?.message).toMatchObject({ status: 'queued', attempts: 0 });
      env.sink.behave({});
      next.start();
      await vi.waitFor(
        async () => expect((await store.messages.getForDelivery(entry!.messageId))?.message.status).toBe('delivered'),
        {
          timeout: 15_000,
          interval: 20,
        },
      );
      expect(env.sink.received.filter((m) => m.rcptTo.includes(`slow@${RCPT_DOMAIN}`))).toHaveLength(1);
    } finally {
      await next.close();
    }
  });
});
