import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { recordDeliveryOutcome } from '../../src/delivery/outcome.js';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';

const DAY = { from: '2026-05-01', to: '2026-05-02' };
const types = (view: { events: Array<{ type: number }> }) => view.events.map((e) => e.type);

describe.each(storeKinds)('delivery outcomes (%s)', (kind) => {
  let env: DeliveryEnv;
  beforeEach(async () => {
    env = await startDeliveryEnv(kind);
  });
  afterEach(() => env.close());

  const stats = async () =>
    (await env.api.call('GET', '/subaccount/stat/aggregate', { sub: env.key, query: DAY })).body;
  const suppressions = async () =>
    (await env.api.call('GET', '/subaccount/suppression', { sub: env.key })).body as Array<{
      email: string;
      reason: number;
      smtp_error: string;
    }>;

  it('a 5xx is HardBounced and suppresses the address with the SMTP reply; with or without an enhanced code', async () => {
    env.sink.behave({
      rcptFor: {
        [`gone@${RCPT_DOMAIN}`]: ['550 5.1.1 <gone@rcpt.test>: user unknown'],
        [`old@${RCPT_DOMAIN}`]: ['550 No such user here'],
      },
    });
    const [gone, old] = await env.send([`gone@${RCPT_DOMAIN}`, `old@${RCPT_DOMAIN}`]);
    const view = await env.waitForStatus(gone!.messageId, 'hard_bounced');
    await env.waitForStatus(old!.messageId, 'hard_bounced');
    expect(types(view)).toEqual([0, 4]);
    expect(view.events[1]).toMatchObject({ smtpCode: 550 });
    expect(view.events[1].smtpDescription).toContain('5.1.1');
    const list = await suppressions();
    expect(list.map((s) => s.email).sort()).toEqual([`gone@${RCPT_DOMAIN}`, `old@${RCPT_DOMAIN}`]);
    expect(list.every((s) => s.reason === 2)).toBe(true);
    expect(list.find((s) => s.email.startsWith('gone'))!.smtp_error).toContain(
      '550 5.1.1 <gone@rcpt.test>: user unknown',
    );
    expect(list.find((s) => s.email.startsWith('old'))!.smtp_error).toContain('550 No such user here');
    expect(await stats()).toMatchObject({ processed: 2, delivered: 0, hardBounced: 2, softBounced: 0 });
    // The suppressed address is dropped before sending next time.
    const [again] = await env.send([`gone@${RCPT_DOMAIN}`]);
    expect(again!.errorCode).toBeDefined();
  });

  it('a policy rejection (5.7.1, or "blocked" without a code) is smtpDropped and suppresses nothing', async () => {
    env.sink.behave({
      rcptFor: {
        [`a@${RCPT_DOMAIN}`]: ['554 5.7.1 Message rejected due to local policy'],
        [`b@${RCPT_DOMAIN}`]: ['554 Transaction blocked by local policy'],
      },
    });
    const entries = await env.send([`a@${RCPT_DOMAIN}`, `b@${RCPT_DOMAIN}`]);
    for (const e of entries) {
      const view = await env.waitForStatus(e.messageId, 'smtp_dropped');
      expect(types(view)).toEqual([0, 1]);
    }
    const stat = (await env.api.call('GET', '/subaccount/stat', { sub: env.key, query: DAY })).body[0].stat;
    expect(stat).toMatchObject({ processed: 2, smtpDropped: 2, sent: 0, hardBounced: 0 });
    expect(await suppressions()).toEqual([]);
  });

  it('a 4xx is SoftBounced and retried 5 times over 24 hours, then counted HardBounced (not suppressed)', async () => {
    env.sink.behave({ rcpt: ['451 4.3.0 Temporary local problem'] });
    const [entry] = await env.send([`later@${RCPT_DOMAIN}`]);
    const id = entry!.messageId;
    let view = await env.waitForMessage(id, (v) => expect(v.attempt).toBe(1));
    expect(view.status).toBe('deferred');
    const delays = contextOf(env.api.mailplane).config.delivery.retryDelaysMs;
    expect(delays).toHaveLength(5);
    expect(delays.reduce((a, b) => a + b, 0)).toBe(24 * 3_600_000);
    for (let retry = 1; retry <= 5; retry++) {
      env.advance(delays[retry - 1]! - 1000);
      // Not yet due: nothing happens a second early.
      await new Promise((r) => setTimeout(r, 100));
      expect((await env.message(id)).attempt).toBe(retry);
      env.advance(1000);
      view = await env.waitForMessage(id, (v) => expect(v.attempt).toBe(retry + 1));
    }
    expect(view.status).toBe('hard_bounced');
    expect(types(view)).toEqual([0, 3, 3, 3, 3, 3, 4]);
    expect(view.events[6].smtpDescription).toContain('451 4.3.0');
    expect(await suppressions()).toEqual([]);
    const total = await env.api.call('GET', '/subaccount/stat/aggregate', {
      sub: env.key,
      query: { from: '2026-05-01', to: '2026-05-03' },
    });
    expect(total.body).toMatchObject({ processed: 1, softBounced: 1, hardBounced: 1, delivered: 0 });
    expect(env.sink.received).toHaveLength(0);
  });

  it('a soft bounce that clears up is Delivered on the next retry', async () => {
    env.sink.behave({ rcpt: ['421-4.7.0 Try again later,', '421 4.7.0 greylisted'] });
    const [entry] = await env.send([`grey@${RCPT_DOMAIN}`]);
    const first = await env.waitForMessage(entry!.messageId, (v) => expect(v.attempt).toBe(1));
    expect(first.status).toBe('deferred');
    // The whole multi-line reply is kept.
    expect(first.events[1].smtpDescription).toContain('Try again later');
    expect(first.events[1].smtpDescription).toContain('greylisted');
    env.sink.behave({});
    env.advance(contextOf(env.api.mailplane).config.delivery.retryDelaysMs[0]!);
    const view = await env.waitForStatus(entry!.messageId, 'delivered');
    expect(types(view)).toEqual([0, 3, 2]);
    expect(await stats()).toMatchObject({ delivered: 1, softBounced: 1, hardBounced: 0 });
    expect(env.sink.received).toHaveLength(1);
  });

  it('a rate-limit deferral whose retries run out ends smtpDropped', async () => {
    env.sink.behave({ rcpt: ['450 4.7.28 Rate limited, too many messages'] });
    const [entry] = await env.send([`busy@${RCPT_DOMAIN}`]);
    await env.waitForMessage(entry!.messageId, (v) => expect(v.attempt).toBe(1));
    for (const delay of contextOf(env.api.mailplane).config.delivery.retryDelaysMs) {
      const before = (await env.message(entry!.messageId)).attempt;
      env.advance(delay);
      await env.waitForMessage(entry!.messageId, (v) => expect(v.attempt).toBe(before + 1));
    }
    const view = await env.waitForStatus(entry!.messageId, 'smtp_dropped');
    expect(types(view).at(-1)).toBe(1);
  });

  it('the same attempt recorded twice (a retry run by two workers after a lost lease) counts once', async () => {
    env.sink.behave({ rcpt: ['451 4.3.0 Temporary local problem'] });
    const [entry] = await env.send([`twice@${RCPT_DOMAIN}`]);
    const id = entry!.messageId;
    await env.waitForMessage(id, (v) => expect(v.attempt).toBe(1));
    // Both workers read the message as it was before their attempt, and both got a 4xx.
    const found = (await contextOf(env.api.mailplane).store.messages.getForDelivery(id))!;
    const soft = { kind: 'soft' as const, smtpCode: 451, text: '451 4.3.0 Temporary local problem' };
    const route = { ipId: null, ipPoolId: null, tpspId: null };
    const ctx = contextOf(env.api.mailplane);
    const [first, second] = await Promise.all([
      recordDeliveryOutcome(ctx, found.message, found.batch, soft, route),
      recordDeliveryOutcome(ctx, found.message, found.batch, soft, route),
    ]);
    expect([first, second].filter((r) => r !== null)).toHaveLength(1);
    const view = await env.message(id);
    expect(view.attempt).toBe(2);
    expect(types(view)).toEqual([0, 3, 3]);
  });
});
