/**
 * Traffic shaping as an operator runs it (docs/shaping.md): the Express and Koa example servers in
 * their own processes, on the real clock, delivering through a test DNS server to a loopback MX that
 * pushes back as Gmail does (test/support/throttling-mx.ts); everything through the HTTP API.
 *
 * - A rule for the recipient domain is stored and read back; bad rules get a 422 with their code and
 *   leave the table as it was.
 * - 30 messages keep to it: the receiver never saw two connections at once nor refused one for rate
 *   (without the rule, Gmail's default limits would go past its allowance), and each message was
 *   delivered at its first attempt.
 * - The state shows the source × destination with its rate and limits; a storm of Gmail's
 *   `421 4.7.0 … temporarily blocked` suspends it for an hour without spending the message's retry,
 *   and the operator's resume lifts the suspension.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl, pgUrl, type StoreKind, type TestDatabase } from '../support/databases.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { exampleApi, verifiedSender, type ExampleApi } from '../support/example-api.js';
import { startExample, type ExampleServer } from '../support/example-server.js';
import { gmailTemporarilyBlockedReply, startThrottlingMx, type ThrottlingMx } from '../support/throttling-mx.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
type Json = any;

const POLL = { timeout: 30_000, interval: 250 };
const SOFT_BOUNCED = 3;
const HARD_BOUNCED = 4;
/** A Google Workspace domain: its mail is Gmail's (by its MX), so Gmail's replies are read as Gmail's. */
const RCPT_DOMAIN = 'gw.test';
/** The example binds no IP of its own: mail leaves from the host, so the MX counts 127.0.0.1. */
const CLIENT_IP = '127.0.0.1';
const KEY = `host|domain:${RCPT_DOMAIN}`;
/**
 * The receiver allows 24 messages in any 3 s (480 a minute, its window scaled down so the test runs
 * in seconds) and 2 connections; the rule asks for 300 a minute, one every 200 ms, on one connection.
 * The margin absorbs a loaded machine's jitter between a message's slot and its arrival.
 */
const RECEIVER = { messagesPerMinute: 24, windowMs: 3000, connectionsPerIp: 2 };
const RULE = { destination: `domain:${RCPT_DOMAIN}`, source: '*', messagesPerMinute: 300, maxConnections: 1 };

const cases: Array<readonly ['express' | 'koa', StoreKind]> = [
  ['express', 'sqlite'],
  ['koa', pgUrl ? 'postgres' : 'sqlite'],
];

describe.each(cases)('traffic shaping through the %s example on %s', (name, kind) => {
  let dns: TestDnsServer;
  let mx: ThrottlingMx;
  let database: TestDatabase | undefined;
  let server: ExampleServer;
  let api: ExampleApi;
  let sender: Record<string, string>;

  beforeAll(async () => {
    dns = await startTestDnsServer();
    dns.set(RCPT_DOMAIN, 'MX', [{ exchange: 'aspmx.l.google.com', preference: 1 }]);
    dns.set('aspmx.l.google.com', 'A', ['127.0.0.1']);
    mx = await startThrottlingMx(RECEIVER);
    // SQLite is the example's default; on PostgreSQL it starts on an empty database, as an operator's would.
    database = kind === 'postgres' ? await freshDatabaseUrl('postgres') : undefined;
    server = await startExample(name, {
      MAILPLANE_DNS_SERVERS: dns.address,
      MAILPLANE_MX_PORT: String(mx.port),
      ...(database && { MAILPLANE_DATABASE_URL: database.url }),
    });
    api = exampleApi(server);
    sender = (await verifiedSender(api, dns, 'Newsletter', 'news.test')).key;
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await mx?.close();
    await dns?.close();
    await database?.drop();
  });

  const send = async (local: string[]): Promise<string[]> => {
    const body = {
      from: { email: 'news@news.test', name: 'Newsletter' },
      to: local.map((user) => ({ email: `${user}@${RCPT_DOMAIN}` })),
      subject: 'Our spring issue',
      textBody: 'Hello from the newsletter',
    };
    return (await api.ok('POST', '/subaccount/email', sender, body)).map((sent: Json) => sent.messageId as string);
  };
  const message = (id: string): Promise<Json> => api.ok('GET', `/subaccount/message/${id}`, sender);
  const statuses = async (ids: string[]) => (await Promise.all(ids.map(message))).map((view) => view.status);
  const state = async (): Promise<Json> =>
    ((await api.ok('GET', '/account/shaping/state', api.account)) as Json[]).find((row) => row.key === KEY);
  const bounces = (view: Json) =>
    view.events.filter((event: Json) => event.type === SOFT_BOUNCED || event.type === HARD_BOUNCED);

  it('stores a rule and refuses bad ones with their code, the table unchanged', async () => {
    const put = await api.ok('PUT', '/account/shaping/rule', api.account, { rules: [RULE] });
    expect(put.rules).toEqual([RULE]);
    expect((await api.ok('GET', '/account/shaping/rule', api.account)).rules).toEqual([RULE]);

    for (const [bad, code] of [
      [{ ...RULE, messagesPerMinute: -5 }, 'INVALID_SHAPING_LIMIT'],
      [{ ...RULE, destination: 'provider:hotmale' }, 'UNKNOWN_PROVIDER'],
    ] as const) {
      const refused = await api.call('PUT', '/account/shaping/rule', api.account, { rules: [bad] });
      expect(refused.status, JSON.stringify(refused.body)).toBe(422);
      expect(refused.body).toMatchObject({ code, message: expect.stringMatching(/^rules\[0\]: /) });
    }
    expect((await api.ok('GET', '/account/shaping/rule', api.account)).rules).toEqual([RULE]);
  });

  it('delivers 30 messages within the rule: one connection, no refusal, no retry', async () => {
    const ids = await send(Array.from({ length: 30 }, (_, i) => `reader${i}`));
    expect(ids).toHaveLength(30);
    await expect.poll(() => statuses(ids), POLL).toEqual(ids.map(() => 'delivered'));

    const counts = mx.client(CLIENT_IP);
    expect(counts.accepted).toBe(30);
    expect(counts.maxOpen).toBeLessThanOrEqual(1);
    expect(counts.replies421).toBe(0);
    expect(counts.refusedConnections).toBe(0);
    // One every 200 ms: 29 gaps cannot take less than 5.8 s (4 s leaves room for the first's delay).
    const arrivals = counts.messages.map((received) => received.acceptedAt);
    expect(Math.max(...arrivals) - Math.min(...arrivals)).toBeGreaterThan(4000);
    for (const view of await Promise.all(ids.map(message))) {
      expect(view.attempt, JSON.stringify(view.events)).toBe(1);
      expect(bounces(view)).toEqual([]);
    }

    expect(await state()).toMatchObject({
      source: 'host',
      destination: `domain:${RCPT_DOMAIN}`,
      factor: 1,
      ratePerMinute: 300,
      currentRatePerMinute: 300,
      maxConnections: 1,
      suspendedUntil: null,
    });
  }, 60_000);

  it("is suspended by a storm of Gmail's 421 4.7.0 blocks, spends no retry on it, and resumes", async () => {
    mx.refuseEveryMessage(gmailTemporarilyBlockedReply);
    const [stormed] = await send(['stormed']);
    await expect.poll(async () => (await state())?.suspendedUntil ?? null, POLL).not.toBeNull();
    mx.refuseEveryMessage(null);
    const suspended = await state();
    expect(suspended).toMatchObject({ reason: 'GMAIL_UNSOLICITED_RATE_BLOCKED' });
    expect(suspended.lastReply).toMatch(
      /^421-4\.7\.0 .* unusual rate of .* blocked\. Review our Bulk Senders Guidelines/,
    );
    // Suspended for an hour (the table's reputation suspension), not for the length of the storm.
    expect(suspended.suspendedUntil).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(mx.client(CLIENT_IP).stormRefusals).toBeGreaterThan(0);

    const resumed = await api.ok('POST', '/account/shaping/state/resume', api.account, { key: KEY });
    expect(resumed).toMatchObject({ key: KEY, suspendedUntil: null, factor: 1 });
    expect(await state()).toMatchObject({ suspendedUntil: null, factor: 1 });
    const unknown = await api.call('POST', '/account/shaping/state/resume', api.account, { key: 'host|domain:x.test' });
    expect(unknown.status).toBe(406);
    expect(unknown.body.code).toBe('SHAPING_STATE_NOT_FOUND');

    // Lifted: the next message goes through the resumed source.
    const [after] = await send(['after']);
    await expect.poll(async () => (await message(after!)).status, POLL).toBe('delivered');
    // The stormed message spent no attempt: it waits for routing again (after `throttleWaitMs`, 30 s),
    // or, on a machine slow enough to get there, was delivered at its first counted attempt.
    const stormedView = await message(stormed!);
    expect(stormedView.attempt, JSON.stringify(stormedView.events)).toBe(stormedView.status === 'delivered' ? 1 : 0);
    expect(bounces(stormedView)).toEqual([]);
  }, 60_000);
});
