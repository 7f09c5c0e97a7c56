import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
    ['a greeting that never comes', { greeting: 'stall' }, /ETIMEDOUT|timeout|greeting/i],
    ['garbage instead of a greeting', { greeting: 'garbage' }, /EPROTOCOL|ECONNECTION|Invalid|unexpected|greeting/i],
    ['a 421 greeting', { greeting: ['421 4.3.2 Service shutting down'] }, /421/],
  ])('%s is a SoftBounced with the failure recorded, and the worker keeps working', async (_name, behaviour, text) => {
    const view = await firstAttemptUnder(behaviour);
    expect(view.status).toBe('deferred');
    expect(view.events.map((e: { type: number }) => e.type)).toEqual([0, 3]);
    expect(view.events[1].smtpDescription).toMatch(text);
  });

  it('a multi-line 5xx reply is recorded whole and decides a hard bounce', async () => {
    const view = await firstAttemptUnder({ rcpt: ['550-5.1.1 The email account that you tried to reach does not exist.', '550-5.1.1 Please check the address', '550 5.1.1 and try again.'] });
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
    const [self, nullMx, missing, noAddress] = await env.send(['a@self.test', 'b@nomail.test', 'c@missing.test', 'd@noaddr.test']);
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
});
