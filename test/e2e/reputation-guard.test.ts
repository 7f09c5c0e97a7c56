/**
 * The reputation guard as an operator runs it (docs/reputation.md, "Try it"): the Express and Koa
 * example servers in their own processes, on the real clock, with real DNS and MX on loopback (a
 * test DNS server, an SMTP sink that refuses unknown recipients with a real `550 5.1.1` reply), and
 * real HTTP receivers for the account's webhook and the Slack URL; everything through the HTTP API.
 *
 * - A sub-account that mails a list with 20 % unknown recipients is blocked automatically, says why,
 *   has its sends refused, and the operator hears of it three ways (a signed webhook, a Slack POST,
 *   an email through mailplane itself); unblocking resolves the incident and says so.
 * - Two nodes on one PostgreSQL database: an alert rule crossed once opens one incident, notified once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { Webhook } from 'standardwebhooks';
import { defaultDomainRecordsConfig } from 'mailplane';
import { migratedDatabaseUrl, pgUrl, type StoreKind, type TestDatabase } from '../support/databases.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startExample, type ExampleServer } from '../support/example-server.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../support/webhook-receiver.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
type Json = any;

/** "Within 2 minutes of crossing" on a 1 s evaluation interval: a generous deadline, real time. */
const POLL = { timeout: 60_000, interval: 250 };
const EVALUATION_INTERVAL = '1s';
const SHARED_SECRET = 'reputation-guard-nodes-share-this-secret-0123';
/** A 150-recipient list, 20 % of which the recipients' server does not know. */
const KNOWN = Array.from({ length: 120 }, (_, i) => `reader${i}@rcpt.test`);
const UNKNOWN = Array.from({ length: 30 }, (_, i) => `gone${i}@rcpt.test`);
const ONCALL = 'oncall@rcpt.test';
const ALERTS_FROM = 'alerts@ops.test';

/** Real DNS, MX and HTTP receivers on loopback, shared by the servers a test starts. */
interface Loopback {
  dns: TestDnsServer;
  sink: SmtpSink;
  hooks: WebhookReceiver;
  slack: WebhookReceiver;
  close(): Promise<void>;
}

async function startLoopback(): Promise<Loopback> {
  const dns = await startTestDnsServer();
  dns.txt(defaultDomainRecordsConfig.returnPathTarget, `v=spf1 include:${defaultDomainRecordsConfig.spfInclude} ~all`);
  dns.set('rcpt.test', 'MX', [{ exchange: 'mx.rcpt.test', preference: 10 }]);
  dns.set('mx.rcpt.test', 'A', ['127.0.0.1']);
  const userUnknown = (address: string) => [
    `550 5.1.1 <${address}>: Recipient address rejected: User unknown in virtual mailbox table`,
  ];
  const sink = await startSmtpSink({
    rcptFor: Object.fromEntries(UNKNOWN.map((address) => [address, userUnknown(address)])),
  });
  const hooks = await startWebhookReceiver();
  const slack = await startWebhookReceiver();
  return {
    dns,
    sink,
    hooks,
    slack,
    close: async () => {
      await Promise.all([hooks.close(), slack.close(), sink.close(), dns.close()]);
    },
  };
}

/** The example's environment for real delivery through `loopback`, evaluating every second. */
const guardEnv = (loopback: Loopback, database: TestDatabase): Record<string, string> => ({
  MAILPLANE_DATABASE_URL: database.url,
  MAILPLANE_DNS_SERVERS: loopback.dns.address,
  MAILPLANE_MX_PORT: String(loopback.sink.port),
  MAILPLANE_REPUTATION_INTERVAL: EVALUATION_INTERVAL,
  MAILPLANE_ALERTS_FROM: ALERTS_FROM,
  MAILPLANE_WEBHOOKS_ALLOW_PRIVATE: 'on',
});

/** The HTTP API of one example server, as curl would call it. */
function apiOf(server: ExampleServer) {
  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const ok = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const result = await call(method, path, headers, body);
    expect([200, 201], `${method} ${path}: ${JSON.stringify(result.body)}`).toContain(result.status);
    return result.body;
  };
  return { call, ok, account: { 'x-account-apikey': server.accountKey } };
}

/** Creates a sub-account and verifies its sending domain, its records published on the test DNS server. */
async function verifiedSender(api: ReturnType<typeof apiOf>, dns: TestDnsServer, name: string, domainName: string) {
  const sub = await api.ok('POST', '/account/subaccount', api.account, { name });
  const key = { 'x-subaccount-apikey': sub.apiKey as string };
  const domain = await api.ok('POST', '/subaccount/domain', key, { name: domainName });
  dns.txt(domain.dkim.host, domain.dkim.textValue);
  dns.cname(domain.returnPath.host, domain.returnPath.textValue);
  dns.cname(domain.track.host, domain.track.textValue);
  dns.txt(domain.dmarc.host, domain.dmarc.textValue);
  expect((await api.ok('POST', `/subaccount/domain/${domain.id}/verify`, key)).verified).toBe(true);
  return { id: sub.id as number, key };
}

/** The incident deliveries a webhook receiver got (`incident.opened`/`resolved`), each checked against `secret`. */
function incidentDeliveries(receiver: WebhookReceiver, secret: string, type: string, topic: string) {
  return receiver.received
    .filter((delivery) => delivery.json?.type === type && delivery.json.incident?.topic === topic)
    .map((delivery: ReceivedDelivery) => ({ delivery, signed: verifies(secret, delivery) }));
}

function verifies(secret: string, delivery: ReceivedDelivery): boolean {
  try {
    new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

const send = (from: string, to: string[]) => ({
  from: { email: from, name: 'Newsletter' },
  to: to.map((email) => ({ email })),
  subject: 'Our spring issue',
  textBody: 'Hello from the newsletter',
});

const cases: Array<readonly ['express' | 'koa', StoreKind]> = [
  ['express', 'sqlite'],
  ['koa', pgUrl ? 'postgres' : 'sqlite'],
];

describe.each(cases)('the reputation guard through the %s example on %s', (name, kind) => {
  let loopback: Loopback;
  let database: TestDatabase;
  let server: ExampleServer;
  beforeAll(async () => {
    loopback = await startLoopback();
    database = await migratedDatabaseUrl(kind);
    server = await startExample(name, guardEnv(loopback, database));
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await loopback?.close();
    await database?.drop();
  });

  it('blocks a sub-account mailing 20 % unknown recipients, tells three ways, and the unblock resolves it', async () => {
    const { dns, sink, hooks, slack } = loopback;
    const api = apiOf(server);
    const newsletter = await verifiedSender(api, dns, 'Newsletter', 'newsletter.test');
    await verifiedSender(api, dns, 'Ops', 'ops.test');
    const webhook = await api.ok('POST', '/account/webhook', api.account, { url: hooks.url, incident: true });
    await api.ok('PUT', '/account/protection', api.account, { emails: [ONCALL], slackUrl: slack.url });

    const list = KNOWN.flatMap((known, i) => (i % 4 === 0 ? [UNKNOWN[i / 4]!, known] : [known]));
    expect(list).toHaveLength(150);
    // One request, so the evaluation never sees part of the list counted.
    await api.ok('POST', '/subaccount/email', newsletter.key, send('news@newsletter.test', list));

    // Blocked automatically, saying why.
    const subAccount = () => api.ok('GET', `/account/subaccount/${newsletter.id}`, api.account);
    await expect.poll(async () => (await subAccount()).blocked, POLL).toBe(true);
    expect((await subAccount()).block_reason).toMatch(
      /^blocked automatically: hard-bounce rate [\d.]+ % over 24 hours \(150 processed\) reached the block line of 10 %$/,
    );
    const refused = await api.call(
      'POST',
      '/subaccount/email',
      newsletter.key,
      send('news@newsletter.test', KNOWN.slice(0, 1)),
    );
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('SUBACCOUNT_BLOCKED');

    // One open incident about the block. On a slow machine an evaluation may run while the bounces
    // are still coming in, between the warning line (5 %) and the block line: its warning is allowed.
    const topic = `block:${newsletter.id}`;
    const open: Json[] = await api.ok('GET', '/account/incident/?status=0', api.account);
    const warning = `warn:${newsletter.id}:0`;
    expect(open.filter((incident) => ![topic, warning].includes(incident.topic))).toEqual([]);
    const blocks = open.filter((incident) => incident.topic === topic);
    expect(blocks).toHaveLength(1);
    const incident = blocks[0];
    expect(incident).toMatchObject({ status: 0, entityType: 'subAccount', entityValue: String(newsletter.id) });
    expect(incident.summary).toMatch(/^Sub-account Newsletter blocked: hard-bounce rate/);
    expect(incident.timeline.map((step: Json) => step.action)).toEqual(['opened', 'blocked']);

    // Told three ways: a signed webhook, a Slack-compatible POST, an email from MAILPLANE_ALERTS_FROM.
    await expect.poll(() => incidentDeliveries(hooks, webhook.secret, 'incident.opened', topic), POLL).toHaveLength(1);
    const [opened] = incidentDeliveries(hooks, webhook.secret, 'incident.opened', topic);
    expect(opened!.signed).toBe(true);
    expect(opened!.delivery.headers['webhook-id']).toBe(`incident_${incident.id}_opened`);
    expect(opened!.delivery.json.incident).toMatchObject({ id: incident.id, summary: incident.summary });

    const slackPosts = () => slack.received.filter((post) => post.json?.text?.includes('Newsletter blocked'));
    await expect.poll(() => slackPosts().length, POLL).toBe(1);
    expect(slackPosts()[0]!.headers['content-type']).toBe('application/json');
    expect(slackPosts()[0]!.json.text).toBe(`[mailplane] Incident opened: ${incident.summary}`);

    const toOncall = () => sink.received.filter((message) => message.rcptTo.includes(ONCALL));
    const notifications = async () =>
      (await Promise.all(toOncall().map((message) => simpleParser(message.raw)))).filter(
        (mail) => mail.subject === `[mailplane] Incident opened: ${incident.summary}`,
      );
    await expect.poll(async () => (await notifications()).length, POLL).toBe(1);
    const [email] = await notifications();
    expect(email!.from?.value.map((address) => address.address)).toEqual([ALERTS_FROM]);

    // The operator unblocks: the incident is resolved, says so, and the webhook hears of it.
    await api.ok('PUT', `/account/subaccount/${newsletter.id}`, api.account, { blocked: false });
    const resolved = await api.ok('GET', `/account/incident/${incident.id}`, api.account);
    expect(resolved).toMatchObject({ status: 1, resolvedBy: 'operator' });
    expect(resolved.timeline.map((step: Json) => step.action)).toEqual(['opened', 'blocked', 'unblocked', 'resolved']);
    await expect
      .poll(() => incidentDeliveries(hooks, webhook.secret, 'incident.resolved', topic), POLL)
      .toHaveLength(1);
    const [closed] = incidentDeliveries(hooks, webhook.secret, 'incident.resolved', topic);
    expect(closed!.signed).toBe(true);
    expect(closed!.delivery.json.incident).toMatchObject({ id: incident.id, status: 1 });
    expect((await subAccount()).blocked).toBe(false);
  }, 90_000);
});

describe.skipIf(!pgUrl)('alert evaluation on two example nodes of one PostgreSQL database', () => {
  let loopback: Loopback;
  let database: TestDatabase;
  const nodes: ExampleServer[] = [];
  beforeAll(async () => {
    loopback = await startLoopback();
    database = await migratedDatabaseUrl('postgres');
    const env = { ...guardEnv(loopback, database), MAILPLANE_SECRET: SHARED_SECRET };
    nodes.push(await startExample('express', env));
    nodes.push(await startExample('koa', env));
  }, 60_000);
  afterAll(async () => {
    for (const node of nodes) await node.stop();
    await loopback?.close();
    await database?.drop();
  });

  it('opens one incident for a crossed rule and notifies it once, though both nodes evaluate', async () => {
    const { dns, hooks } = loopback;
    const [first, second] = nodes as [ExampleServer, ExampleServer];
    const api = apiOf(first);
    const sender = await verifiedSender(api, dns, 'Announcements', 'announce.test');
    const webhook = await api.ok('POST', '/account/webhook', api.account, { url: hooks.url, incident: true });
    const rule = await api.ok('POST', '/account/alert/', api.account, {
      name: 'Five or more',
      entityType: 'account',
      parameter: 7,
      threshold: 5,
      windowHours: 1,
      emails: [],
    });
    // Sent through the other node: the account is one, whichever node answers.
    const other = { ...apiOf(second), account: api.account };
    await other.ok('POST', '/subaccount/email', sender.key, send('hi@announce.test', KNOWN.slice(0, 5)));

    const topic = `alert:${rule.id}`;
    await expect.poll(() => incidentDeliveries(hooks, webhook.secret, 'incident.opened', topic), POLL).toHaveLength(1);
    // A few more intervals on both nodes: no second incident, no second notification.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const incidents: Json[] = await other.ok('GET', '/account/incident/', api.account);
    expect(incidents.map((incident) => [incident.topic, incident.status])).toEqual([[topic, 0]]);
    expect(incidents[0]).toMatchObject({ alertId: rule.id, measuredValue: 5 });
    const deliveries = incidentDeliveries(hooks, webhook.secret, 'incident.opened', topic);
    expect(deliveries.map((entry) => entry.signed)).toEqual([true]);
  }, 60_000);
});
