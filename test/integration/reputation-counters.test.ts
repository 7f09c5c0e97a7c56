/**
 * The reputation guard's hourly counters (docs/reputation.md, "Counters") as real sends leave them:
 * accepted through the API, delivered from two allocated loopback IPs to a real SMTP sink that
 * refuses one address for good and defers another, then summed per sub-account, IP, provider and
 * sending domain from the store.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { hourOfMs, type ReputationCounters, type ReputationScope } from 'mailplane';
import { contextOf } from '../../src/instance-context.js';
import { MailboxProvider } from '../../src/routing/providers.js';
import { recordEngagement } from '../../src/tracking/engagement.js';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, T0, type DeliveryEnv } from '../support/delivery-env.js';
import { createSender, sendBody, type Sender } from '../support/sending.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the JSON shape
type Json = any;

describe.each(storeKinds)('reputation counters (%s)', (kind) => {
  let env: DeliveryEnv;
  let other: Sender;
  beforeEach(async () => {
    env = await startDeliveryEnv(kind);
    other = await createSender(env.api, 'other', 'other.test');
    env.dns.set('gmail.com', 'MX', [{ exchange: `mx.${RCPT_DOMAIN}`, preference: 10 }]);
  });
  afterEach(() => env.close());

  const account = () => ({ account: env.api.accountKey });
  async function pool(name: string, address: string): Promise<number> {
    const allocated = await env.api.call('PUT', '/account/ip/allocate', { ...account(), body: { ips: [address] } });
    expect(allocated.status, allocated.text).toBe(200);
    const created = await env.api.call('POST', '/account/ippool', {
      ...account(),
      body: { name, ips: [{ publicIP: address }], routingStrategy: 0, routingMetaData: '{}' },
    });
    expect(created.status, created.text).toBe(200);
    return allocated.body.allocated[0].id;
  }
  async function send(sender: Sender, to: string[], ippool: string): Promise<Json[]> {
    const result = await env.api.call('POST', '/subaccount/email', {
      sub: sender.subAccount.apiKey,
      body: sendBody(`news@${sender.domain.name}`, to, { ippool }),
    });
    expect(result.status, result.text).toBe(200);
    return result.body;
  }
  const total = (scope: Omit<ReputationScope, 'accountId'>): Promise<ReputationCounters> => {
    const hour = hourOfMs(T0);
    const accountId = env.sender.subAccount.accountId;
    return contextOf(env.api.mailplane).store.reputation.total({ accountId, ...scope }, hour, hour);
  };

  it('counts accepts without an IP, and each outcome under its sub-account, IP, provider and domain', async () => {
    const ipA = await pool('First', '127.0.0.2');
    const ipB = await pool('Second', '127.0.0.3');
    env.sink.behave({
      rcptFor: {
        [`gone@${RCPT_DOMAIN}`]: ['550 5.1.1 user unknown'],
        [`later@${RCPT_DOMAIN}`]: ['451 4.3.0 Temporary local problem'],
      },
    });
    const first = await send(
      env.sender,
      [`ok1@${RCPT_DOMAIN}`, `ok2@${RCPT_DOMAIN}`, `gone@${RCPT_DOMAIN}`, `later@${RCPT_DOMAIN}`, 'someone@gmail.com'],
      'first',
    );
    const second = await send(env.sender, [`ok3@${RCPT_DOMAIN}`, 'not an address'], 'second');
    const third = await send(other, [`x@${RCPT_DOMAIN}`], 'second');
    const dropped = second.find((entry) => entry.errorCode !== undefined);
    expect(dropped?.to).toBe('not an address');
    const finalStatus: Record<string, string> = { [`gone@${RCPT_DOMAIN}`]: 'hard_bounced' };
    for (const entry of [...first, ...second, ...third]) {
      if (entry === dropped) continue;
      if (entry.to === `later@${RCPT_DOMAIN}`)
        await env.waitForMessage(entry.messageId, (v) => expect(v.attempt).toBe(1));
      else await env.waitForStatus(entry.messageId, finalStatus[entry.to] ?? 'delivered');
    }
    // The outcomes commit before the message view shows them; the counters with them.
    await vi.waitFor(async () => expect((await total({})).sent).toBe(6), { timeout: 5_000, interval: 20 });

    const sub = env.sender.subAccount.id;
    expect(await total({ subAccountId: sub })).toEqual({
      processed: 7,
      dropped: 1,
      sent: 5,
      delivered: 4,
      softBounced: 1,
      hardBounced: 1,
      opened: 0,
      unsubscribed: 0,
      spam: 0,
    });
    expect(await total({ subAccountId: other.subAccount.id })).toMatchObject({ processed: 1, sent: 1, delivered: 1 });

    // Accepts have no IP yet; every attempt counts under the IP it left from.
    expect(await total({ ipIds: [0] })).toMatchObject({ processed: 8, dropped: 1, sent: 0, delivered: 0 });
    expect(await total({ ipIds: [ipA] })).toMatchObject({
      processed: 0,
      sent: 4,
      delivered: 3,
      hardBounced: 1,
      softBounced: 1,
    });
    expect(await total({ ipIds: [ipB] })).toMatchObject({ processed: 0, sent: 2, delivered: 2, hardBounced: 0 });
    expect(await total({ ipIds: [ipA, ipB], subAccountId: sub })).toMatchObject({ sent: 5, delivered: 4 });

    expect(await total({ provider: MailboxProvider.Gmail })).toMatchObject({ processed: 1, sent: 1, delivered: 1 });
    expect(await total({ provider: MailboxProvider.Default })).toMatchObject({
      processed: 7,
      dropped: 1,
      sent: 5,
      delivered: 4,
      hardBounced: 1,
    });
    expect(await total({ provider: MailboxProvider.Gmail, ipIds: [ipB] })).toMatchObject({ sent: 0 });

    expect(await total({ domainId: env.sender.domain.id })).toMatchObject({ processed: 7, sent: 5 });
    expect(await total({ domainId: other.domain.id })).toMatchObject({ processed: 1, sent: 1, delivered: 1 });

    // The daily statistics agree on what both count.
    const day = await env.api.call('GET', '/subaccount/stat/aggregate', {
      sub: env.key,
      query: { from: '2026-05-01', to: '2026-05-01' },
    });
    expect(day.body).toMatchObject({ processed: 7, dropped: 1, delivered: 4, hardBounced: 1, softBounced: 1 });
  });

  it('counts sent once when the retries run out, and a later open under the IP the message left from', async () => {
    const ip = await pool('Only', '127.0.0.2');
    env.sink.behave({ rcptFor: { [`later@${RCPT_DOMAIN}`]: ['451 4.3.0 Temporary local problem'] } });
    const [later, read] = await send(env.sender, [`later@${RCPT_DOMAIN}`, `read@${RCPT_DOMAIN}`], 'only');
    await env.waitForStatus(read.messageId, 'delivered');
    await env.waitForMessage(later.messageId, (v) => expect(v.attempt).toBe(1));
    for (const [retry, delay] of contextOf(env.api.mailplane).config.delivery.retryDelaysMs.entries()) {
      env.advance(delay);
      await env.waitForMessage(later.messageId, (v) => expect(v.attempt).toBe(retry + 2));
    }
    await env.waitForStatus(later.messageId, 'hard_bounced');
    expect(await recordEngagement(contextOf(env.api.mailplane), read.messageId, { kind: 'open', userAgent: 'x' })).toBe(
      true,
    );

    const day = async (ipIds: number[]) => {
      const hour = hourOfMs(T0);
      const accountId = env.sender.subAccount.accountId;
      return contextOf(env.api.mailplane).store.reputation.total({ accountId, ipIds }, hour, hour + 48);
    };
    await vi.waitFor(async () => expect((await day([ip])).hardBounced).toBe(1), { timeout: 5_000, interval: 20 });
    // Six attempts through the IP: one deferral counted (messages, as the daily softBounced), one sent at the end.
    expect(await day([ip])).toMatchObject({ sent: 2, delivered: 1, softBounced: 1, hardBounced: 1, opened: 1 });
    expect(await day([0])).toMatchObject({ processed: 2, sent: 0, opened: 0 });
  });
});
