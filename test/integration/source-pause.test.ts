/**
 * The reputation guard's record of paused sources and of their undo, end to end on real sockets:
 * one IP (127.0.0.2) delivers to a loopback MX that refuses outlook.com recipients with Microsoft's
 * S3150 block-list reply and takes gmail.com's. The IP is paused for Microsoft only, an incident says
 * so, a repeat refusal opens no second one, and the operator's resume (or a delivery once the pause
 * ran out) resolves it. An unblocked sub-account's block incident is resolved with `unblocked`.
 * The clock runs with real time, plus the hours a test skips.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mxTransport } from '../../adapters/transport/smtp/index.js';
import { contextOf } from '../../src/instance-context.js';
import { BLOCKLIST_PAUSE_MS } from '../../src/shaping/throttle-replies.js';
import { MailboxProvider } from '../../src/routing/providers.js';
import { useTestApi } from '../support/api.js';
import { storeKinds } from '../support/databases.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { createSender, sendBody, type Sender } from '../support/sending.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the JSON shape
type Json = any;

/** Microsoft's S3150 refusal as received (the text test/unit/throttle-replies.test.ts checks). */
const S3150 =
  "550 5.7.1 Unfortunately, messages from [127.0.0.2] weren't sent. Please contact your Internet service provider since part of their network is on our block list (S3150). You can also refer your provider to http://mail.live.com/mail/troubleshooting.aspx#errors. [BN8NAM12FT066.eop-nam12.prod.protection.outlook.com]";
const REFUSED = 'blocked@outlook.com';
const HOUR = 3_600_000;

describe.each(storeKinds)('incidents of paused sources and their undo (%s)', (kind) => {
  const bench = {} as { dns: TestDnsServer; sink: SmtpSink; sender: Sender; ipId: number };
  /** Real time plus the hours a test skipped: delivery, the job queue and the pauses all read it. */
  const clock = { skippedMs: 0, now: () => Date.now() + clock.skippedMs };
  beforeEach(async () => {
    clock.skippedMs = 0;
    bench.dns = await startTestDnsServer();
    bench.sink = await startSmtpSink({ rcptFor: { [REFUSED]: [S3150] } });
  });
  afterEach(async () => {
    await bench.sink.close();
    await bench.dns.close();
  });
  const api = useTestApi(kind, () => ({
    clock,
    dns: { servers: [{ host: bench.dns.host, port: bench.dns.port }], timeoutMs: 5_000, retries: 1 },
    delivery: {
      mxPort: bench.sink.port,
      socketTimeoutMs: 2000,
      greetingTimeoutMs: 2000,
      connectionTimeoutMs: 2000,
      busyRetryDelayMs: 100,
    },
    jobs: { pollIntervalMs: 25 },
    shaping: { throttleWaitMs: 150 },
    transport: (ctx) => mxTransport({ resolver: ctx.resolver, port: ctx.delivery.mxPort, ehloName: 'mta.test' }),
  }));
  const account = () => ({ account: api.accountKey });
  beforeEach(async () => {
    const { dns } = bench;
    bench.sender = await createSender(api, 'pauses', 'sender.test');
    const domain = (await contextOf(api.mailplane).store.domains.get(
      bench.sender.subAccount.id,
      bench.sender.domain.id,
    ))!;
    dns.txt(`${domain.dkimSelector}._domainkey.${domain.name}`, `v=DKIM1; k=rsa; p=${domain.dkimPublicKey}`);
    // Both providers' real domains, their MX hosts on loopback (the receiver answers by recipient).
    dns.set('gmail.com', 'MX', [{ exchange: 'gmail-smtp-in.l.google.com', preference: 5 }]);
    dns.set('gmail-smtp-in.l.google.com', 'A', ['127.0.0.1']);
    dns.set('outlook.com', 'MX', [{ exchange: 'outlook-com.olc.protection.outlook.com', preference: 5 }]);
    dns.set('outlook-com.olc.protection.outlook.com', 'A', ['127.0.0.1']);
    const allocated = await api.call('PUT', '/account/ip/allocate', {
      ...account(),
      body: { ips: ['127.0.0.2'], autoWarmupEnabled: false },
    });
    expect(allocated.status, allocated.text).toBe(200);
    bench.ipId = allocated.body.id;
    const pool = await api.call('POST', '/account/ippool', {
      ...account(),
      body: { name: 'Solo', routingStrategy: 0, routingMetaData: '{}', ips: [{ publicIP: '127.0.0.2' }] },
    });
    expect(pool.status, pool.text).toBe(200);
    api.mailplane.start();
  });

  const send = async (to: string[]): Promise<string[]> => {
    const result = await api.call('POST', '/subaccount/email', {
      sub: bench.sender.subAccount.apiKey,
      body: sendBody(`news@${bench.sender.domain.name}`, to, { ippool: 'Solo' }),
    });
    expect(result.status, result.text).toBe(200);
    return result.body.map((e: Json) => e.messageId as string);
  };
  const status = async (id: string) => (await api.call('GET', `/account/message/${id}`, account())).body.status;
  const microsoftKey = () => `ip:${bench.ipId}|provider:microsoft`;
  const state = async (key: string): Promise<Json> =>
    (await api.call('GET', '/account/shaping/state', account())).body.find((s: Json) => s.key === key);
  const pauseIncidents = async (): Promise<Json[]> =>
    (await api.call('GET', '/account/incident/', { ...account(), query: { search: 'paused for' } })).body;
  const waitForPause = () =>
    vi.waitFor(async () => expect((await state(microsoftKey()))?.suspendedUntil).toBeGreaterThan(clock.now()), {
      timeout: 20_000,
      interval: 50,
    });

  it('pauses the IP for Microsoft only, opens one incident naming it, and resolves it on resume', async () => {
    const [toGmail, toOutlook] = await send(['friend@gmail.com', REFUSED]);
    await vi.waitFor(async () => expect(await status(toGmail!)).toBe('delivered'), { timeout: 20_000, interval: 50 });
    await waitForPause();
    const paused = await state(microsoftKey());
    expect(paused).toMatchObject({ reason: 'MICROSOFT_S3150', destination: 'provider:microsoft' });
    expect(paused.suspendedUntil).toBeGreaterThan(clock.now() + BLOCKLIST_PAUSE_MS - HOUR);
    expect((await state(`ip:${bench.ipId}|provider:gmail`))?.suspendedUntil ?? null).toBeNull();
    expect(await status(toOutlook!)).not.toBe('delivered');

    const [incident] = await pauseIncidents();
    expect(incident).toMatchObject({
      state: 'open',
      alertId: null,
      entityType: 'ip',
      entityValue: String(bench.ipId),
      provider: String(MailboxProvider.Microsoft),
    });
    expect(incident.summary).toContain('IP 127.0.0.2 paused for Microsoft until ');
    expect(incident.summary).toContain('MICROSOFT_S3150');
    expect(incident.summary).toContain('on our block list (S3150)');
    expect(incident.timeline.map((a: Json) => a.action)).toEqual(['opened', 'paused']);

    const resumed = await api.call('POST', '/account/shaping/state/resume', {
      ...account(),
      body: { key: microsoftKey() },
    });
    expect(resumed.status, resumed.text).toBe(200);
    const closed = (await api.call('GET', `/account/incident/${incident.id}`, account())).body;
    expect(closed).toMatchObject({ state: 'resolved', resolvedBy: 'operator' });
    expect(closed.timeline.map((a: Json) => [a.action, a.actor])).toEqual([
      ['opened', 'mailplane'],
      ['paused', 'mailplane'],
      ['resumed', 'operator'],
      ['resolved', 'operator'],
    ]);
    expect(closed.timeline[2].detail).toBe('resumed through the API');
  });

  it('opens no second incident on a repeat refusal, and resolves once the pause ran out and mail goes through', async () => {
    const [toOutlook] = await send([REFUSED]);
    await waitForPause();
    const firstUntil = (await state(microsoftKey())).suspendedUntil;
    // A day later the message is tried again and refused again: the pause starts over, no new incident.
    clock.skippedMs += BLOCKLIST_PAUSE_MS + HOUR;
    await vi.waitFor(
      async () => expect((await state(microsoftKey())).suspendedUntil).toBeGreaterThan(firstUntil + HOUR),
      { timeout: 20_000, interval: 50 },
    );
    const incidents = await pauseIncidents();
    expect(incidents).toHaveLength(1);
    expect(incidents[0]).toMatchObject({ state: 'open' });
    expect(incidents[0].timeline.map((a: Json) => a.action)).toEqual(['opened', 'paused']);

    // Delisted: Microsoft takes the mail once the pause has run out.
    bench.sink.behave({});
    clock.skippedMs += BLOCKLIST_PAUSE_MS + HOUR;
    await vi.waitFor(async () => expect(await status(toOutlook!)).toBe('delivered'), { timeout: 20_000, interval: 50 });
    const closed = (await api.call('GET', `/account/incident/${incidents[0].id}`, account())).body;
    expect(closed).toMatchObject({ state: 'resolved', resolvedBy: 'mailplane' });
    expect(closed.timeline.at(-1)).toMatchObject({ action: 'resolved', actor: 'mailplane' });
    expect(closed.timeline.at(-1).detail).toContain('the pause ended');
  });

  it("resolves a sub-account's block incident with `unblocked` when the operator unblocks it, and only then", async () => {
    const { id } = bench.sender.subAccount;
    const block = (blocked: boolean) =>
      api.call('PUT', `/account/subaccount/${id}`, { ...account(), body: { blocked, block_reason: 'spam rate' } });
    expect((await block(true)).status).toBe(200);
    const { incident } = await contextOf(api.mailplane).store.incidents.open({
      accountId: bench.sender.subAccount.accountId,
      topic: `block:${id}`,
      alertId: null,
      entityType: 'subAccount',
      entityId: id,
      parameter: 2,
      provider: null,
      threshold: 0.3,
      windowHours: 24,
      measuredValue: 0.5,
      sampleSize: 1000,
      summary: 'sub-account blocked: spam-complaint rate 0.5 % over 24 hours',
      started: BigInt(Date.now()) * 1_000_000n,
    });
    // Blocking again by hand adds nothing to it.
    expect((await block(true)).status).toBe(200);
    const still = (await api.call('GET', `/account/incident/${incident.id}`, account())).body;
    expect(still.state).toBe('open');
    expect(still.timeline.map((a: Json) => a.action)).toEqual(['opened']);

    const unblocked = await block(false);
    expect(unblocked.status, unblocked.text).toBe(200);
    expect(unblocked.body.blocked).toBe(false);
    const closed = (await api.call('GET', `/account/incident/${incident.id}`, account())).body;
    expect(closed).toMatchObject({ state: 'resolved', resolvedBy: 'operator' });
    expect(closed.timeline.map((a: Json) => [a.action, a.actor])).toEqual([
      ['opened', 'mailplane'],
      ['unblocked', 'operator'],
      ['resolved', 'operator'],
    ]);
  });
});
