/**
 * IP warmup end to end on real sockets: IPs allocated with auto warmup through the API, daily caps
 * per mailbox provider applied at delivery (the sink records which source address sent each
 * message), overflow to another pool once the caps are reached, waiting for the next day without
 * overflow, the evaluation job growing clean providers and holding one that bounced, the IP
 * resource showing the plan, and the warmup ending with the IP Active.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { manualClock } from 'mailplane';
import { mxTransport } from '../../adapters/transport/smtp/index.js';
import { useTestApi } from '../support/api.js';
import { storeKinds } from '../support/databases.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { schemaErrors } from '../support/openapi.js';
import { createSender, sendBody, type Sender } from '../support/sending.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the JSON shape
type Json = any;

const T0 = Date.UTC(2026, 4, 1, 12);
const DAY = 86_400_000;
/** A short plan so a test can fill a stage: 3, then 6 a day per provider, then unlimited. */
const STAGES = [3, 6];

describe.each(storeKinds)('IP warmup at delivery (%s)', (kind) => {
  let dns: TestDnsServer;
  let sink: SmtpSink;
  let sender: Sender;
  let clock: ReturnType<typeof manualClock>;

  beforeEach(async () => {
    dns = await startTestDnsServer();
    sink = await startSmtpSink();
  });
  afterEach(async () => {
    await sink.close();
    await dns.close();
  });
  const api = useTestApi(kind, () => {
    clock = manualClock(T0);
    return {
      clock,
      dns: { servers: [{ host: dns.host, port: dns.port }], timeoutMs: 5_000, retries: 1 },
      delivery: { mxPort: sink.port, socketTimeoutMs: 2000, greetingTimeoutMs: 2000, connectionTimeoutMs: 2000 },
      jobs: { pollIntervalMs: 25 },
      // The manual clock stands still, so the default table's Gmail rate would hold gw.test's mail
      // for good: routing is tested without it (traffic shaping has tests of its own).
      shaping: { defaultRules: false },
      warmup: { plan: { stages: STAGES } },
      transport: (ctx) =>
        mxTransport({ resolver: ctx.resolver, port: ctx.delivery.mxPort, ehloName: 'mta.mailplane.test' }),
    };
  });
  beforeEach(async () => {
    sender = await createSender(api, 'warmup', 'sender.test');
    // Published, so the daily re-checks the tests' clock jumps trigger keep the domain verified.
    const domain = (await contextOf(api.mailplane).store.domains.get(sender.subAccount.id, sender.domain.id))!;
    dns.txt(`${domain.dkimSelector}._domainkey.${domain.name}`, `v=DKIM1; k=rsa; p=${domain.dkimPublicKey}`);
    // rcpt.test is nobody's: the "default" provider (11). gw.test is hosted by Google Workspace: Gmail (0).
    dns.set('rcpt.test', 'MX', [{ exchange: 'mx.rcpt.test', preference: 10 }]);
    dns.set('mx.rcpt.test', 'A', ['127.0.0.1']);
    dns.set('gw.test', 'MX', [{ exchange: 'aspmx.l.google.com', preference: 1 }]);
    dns.set('aspmx.l.google.com', 'A', ['127.0.0.1']);
    api.mailplane.start();
  });

  const account = () => ({ account: api.accountKey });
  async function allocate(address: string, autoWarmupEnabled: boolean): Promise<Json> {
    const result = await api.call('PUT', '/account/ip/allocate', {
      ...account(),
      body: { ips: [address], autoWarmupEnabled },
    });
    expect(result.status, result.text).toBe(200);
    return result.body;
  }
  async function createPool(body: Json): Promise<Json> {
    const result = await api.call('POST', '/account/ippool', {
      ...account(),
      body: { routingStrategy: 0, routingMetaData: '{}', ...body },
    });
    expect(result.status, result.text).toBe(200);
    return result.body;
  }
  async function send(to: string[], ippool: string): Promise<string[]> {
    const result = await api.call('POST', '/subaccount/email', {
      sub: sender.subAccount.apiKey,
      body: sendBody(`news@${sender.domain.name}`, to, { ippool }),
    });
    expect(result.status, result.text).toBe(200);
    return result.body.map((e: Json) => e.messageId);
  }
  const message = async (id: string): Promise<Json> =>
    (await api.call('GET', `/account/message/${id}`, account())).body;
  async function settled(ids: string[], status: string): Promise<void> {
    for (const id of ids) {
      await vi.waitFor(
        async () => {
          const v = await message(id);
          expect(v.status, JSON.stringify(v.events)).toBe(status);
        },
        { timeout: 15_000, interval: 20 },
      );
    }
  }
  const ip = async (id: number): Promise<Json> => (await api.call('GET', `/account/ip/${id}`, account())).body;
  const providerPlan = (view: Json, field: string) => JSON.parse(view.autoWarmupPlan[field]);
  const countFrom = (address: string, domain: string) =>
    sink.received.filter((m) => m.remoteAddress === address && m.rcptTo.some((r) => r.endsWith(`@${domain}`))).length;
  const rcpts = (prefix: string, domain: string, n: number) =>
    Array.from({ length: n }, (_, i) => `${prefix}${i}@${domain}`);

  it('caps a warming IP per provider per day and overflows the rest to the next pool', async () => {
    const warm = await allocate('127.0.0.2', true);
    const spill = await allocate('127.0.0.3', false);
    expect(warm).toMatchObject({ state: 2, autoWarmupEnabled: true, autoWarmupStage: 0 });
    expect(schemaErrors('IP', { ...warm, publicIP: warm.publicIp })).toEqual([]);
    await createPool({ name: 'Spill', ips: [{ publicIP: spill.publicIp }] });
    await createPool({
      name: 'Warm',
      ips: [{ publicIP: warm.publicIp }],
      shouldOverflow: true,
      overflowPoolName: 'Spill',
    });

    const ids = await send([...rcpts('d', 'rcpt.test', 5), ...rcpts('g', 'gw.test', 4)], 'warm');
    await settled(ids, 'delivered');
    // Stage 0: three a day to each provider from the warming IP, the rest from the overflow pool.
    expect(countFrom('127.0.0.2', 'rcpt.test')).toBe(3);
    expect(countFrom('127.0.0.2', 'gw.test')).toBe(3);
    expect(countFrom('127.0.0.3', 'rcpt.test')).toBe(2);
    expect(countFrom('127.0.0.3', 'gw.test')).toBe(1);

    const view = await ip(warm.id);
    expect(schemaErrors('IP', { ...view, publicIP: view.publicIp })).toEqual([]);
    expect(view.autoWarmupPlan).toMatchObject({ name: 'Default Auto Warmup Plan', warmupInterval: 24 });
    expect(providerPlan(view, 'defaultWarmupPlan')).toEqual({ stage: 0, dailyLimit: 3, sentToday: 3, stages: STAGES });
    expect(providerPlan(view, 'gmailWarmupPlan')).toEqual({ stage: 0, dailyLimit: 3, sentToday: 3, stages: STAGES });
    expect(providerPlan(view, 'yahooWarmupPlan')).toEqual({ stage: 0, dailyLimit: 3, sentToday: 0, stages: STAGES });
    expect(BigInt(view.autoWarmupPlan.nextStageAt)).toBe(BigInt(T0 + DAY) * 1_000_000n);
    // The active IP shows no plan.
    expect((await ip(spill.id)).autoWarmupPlan).toBeUndefined();
  });

  it('without overflow, mail over the cap waits (no bounce) and leaves on the next day', async () => {
    const warm = await allocate('127.0.0.2', true);
    await createPool({ name: 'Warm', ips: [{ publicIP: warm.publicIp }] });
    const ids = await send(rcpts('d', 'rcpt.test', 5), 'warm');
    let waiting: Json[] = [];
    await vi.waitFor(
      async () => {
        const views = await Promise.all(ids.map(message));
        expect(views.filter((v) => v.status === 'delivered')).toHaveLength(3);
        waiting = views.filter((v) => v.status !== 'delivered');
      },
      { timeout: 15_000, interval: 20 },
    );
    expect(sink.received).toHaveLength(3);
    expect(waiting).toHaveLength(2);
    for (const view of waiting) {
      expect(view.status).toBe('queued');
      expect(view.events.some((e: Json) => e.type === 3 || e.type === 4)).toBe(false);
    }
    // Still waiting an hour later: today's cap is spent.
    clock.advance(3_600_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sink.received).toHaveLength(3);
    // The next day: the evaluation grows the stage (cap 6) and today's count starts at zero.
    clock.advance(DAY);
    await settled(ids, 'delivered');
    expect(sink.received.every((m) => m.remoteAddress === '127.0.0.2')).toBe(true);
    await vi.waitFor(async () => expect((await ip(warm.id)).autoWarmupStage).toBe(1), {
      timeout: 10_000,
      interval: 20,
    });
    expect(providerPlan(await ip(warm.id), 'defaultWarmupPlan')).toMatchObject({
      stage: 1,
      dailyLimit: 6,
      sentToday: 2,
    });
  });

  it('holds the stage of a provider that bounced, grows the others, and ends the warmup with the IP Active', async () => {
    const warm = await allocate('127.0.0.2', true);
    await createPool({ name: 'Warm', ips: [{ publicIP: warm.publicIp }] });
    sink.behave({
      rcptFor: Object.fromEntries(rcpts('g', 'gw.test', 3).map((r) => [r, ['550 5.1.1 no such user here']])),
    });
    const bounced = await send(rcpts('g', 'gw.test', 3), 'warm');
    const clean = await send(rcpts('d', 'rcpt.test', 3), 'warm');
    await settled(bounced, 'hard_bounced');
    await settled(clean, 'delivered');

    clock.advance(DAY + 1000);
    await vi.waitFor(async () => expect(providerPlan(await ip(warm.id), 'defaultWarmupPlan').stage).toBe(1), {
      timeout: 10_000,
      interval: 20,
    });
    let view = await ip(warm.id);
    // Gmail bounced 3 of 3: its stage holds at 0; every clean provider (also those that sent nothing) grows.
    expect(providerPlan(view, 'gmailWarmupPlan')).toMatchObject({ stage: 0, dailyLimit: 3 });
    expect(providerPlan(view, 'yahooWarmupPlan')).toMatchObject({ stage: 1, dailyLimit: 6 });
    expect(view.autoWarmupStage).toBe(0);

    clock.advance(DAY);
    await vi.waitFor(async () => expect(providerPlan(await ip(warm.id), 'gmailWarmupPlan').stage).toBe(1), {
      timeout: 10_000,
      interval: 20,
    });
    view = await ip(warm.id);
    expect(providerPlan(view, 'defaultWarmupPlan')).toMatchObject({ stage: 2, dailyLimit: null });
    expect(view.state).toBe(2);

    clock.advance(DAY);
    await vi.waitFor(async () => expect((await ip(warm.id)).state).toBe(0), { timeout: 10_000, interval: 20 });
    view = await ip(warm.id);
    expect(view.autoWarmupPlan).toBeUndefined();
    // Active: no caps any more.
    const more = await send(rcpts('x', 'gw.test', 8), 'warm');
    await settled(more, 'delivered');
  });

  it("switching auto warmup off ends the warmup; on again starts a new one at stage 0 with today's sends", async () => {
    const warm = await allocate('127.0.0.2', true);
    await createPool({ name: 'Warm', ips: [{ publicIP: warm.publicIp }] });
    await settled(await send(rcpts('d', 'rcpt.test', 2), 'warm'), 'delivered');
    clock.advance(DAY + 1000);
    await vi.waitFor(async () => expect((await ip(warm.id)).autoWarmupStage).toBe(1), {
      timeout: 10_000,
      interval: 20,
    });

    const off = await api.call('PUT', `/account/ip/${warm.id}`, { ...account(), body: { autoWarmupEnabled: false } });
    expect(off.body).toMatchObject({ state: 0, autoWarmupEnabled: false });
    expect(off.body.autoWarmupPlan).toBeUndefined();
    const on = await api.call('PUT', `/account/ip/${warm.id}`, { ...account(), body: { autoWarmupEnabled: true } });
    expect(on.body).toMatchObject({ state: 2, autoWarmupEnabled: true, autoWarmupStage: 0 });
    expect(providerPlan(on.body, 'defaultWarmupPlan')).toMatchObject({ stage: 0, dailyLimit: 3, sentToday: 0 });
    // The new warmup's first evaluation is a day after it started, not at the old warmup's boundary.
    clock.advance(DAY - 5000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await ip(warm.id)).autoWarmupStage).toBe(0);
    clock.advance(10_000);
    await vi.waitFor(async () => expect((await ip(warm.id)).autoWarmupStage).toBe(1), {
      timeout: 10_000,
      interval: 20,
    });
  });

  it("follows the pool's warmupInterval: with 1 hour, a stage an hour", async () => {
    const warm = await allocate('127.0.0.2', true);
    await createPool({ name: 'Hourly', ips: [{ publicIP: warm.publicIp }], warmupInterval: 1 });
    expect((await ip(warm.id)).autoWarmupPlan).toMatchObject({ warmupInterval: 1 });
    clock.advance(3_600_000 + 1000);
    await vi.waitFor(async () => expect((await ip(warm.id)).autoWarmupStage).toBe(1), {
      timeout: 10_000,
      interval: 20,
    });
    clock.advance(3_600_000);
    await vi.waitFor(async () => expect((await ip(warm.id)).state).toBe(0), { timeout: 10_000, interval: 20 });
  });
});
