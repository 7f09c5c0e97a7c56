/**
 * IP pools in motion through the Express example (its own process, the real clock; SQLite, and
 * PostgreSQL when the tests have one): a
 * volume-percentage split and a warming IP whose daily cap overflows to another pool, delivered to
 * a loopback sink that records each message's source address (127.0.0.2, 127.0.0.3, ...).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultDomainRecordsConfig } from 'mailplane';
import { freshDatabaseUrl, storeKinds } from '../support/databases.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startExample, type ExampleServer } from '../support/example-server.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
type Json = any;

describe.each(storeKinds)('IP pools through the express example (%s)', (kind) => {
  let database: Awaited<ReturnType<typeof freshDatabaseUrl>>;
  let dns: TestDnsServer;
  let sink: SmtpSink;
  let server: ExampleServer;
  let subKey: Record<string, string>;
  const accountKey = () => ({ 'x-account-apikey': server.accountKey });

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
    expect([200, 201], JSON.stringify(result.body)).toContain(result.status);
    return result.body;
  };

  beforeAll(async () => {
    dns = await startTestDnsServer();
    sink = await startSmtpSink();
    dns.txt(
      defaultDomainRecordsConfig.returnPathTarget,
      `v=spf1 include:${defaultDomainRecordsConfig.spfInclude} ~all`,
    );
    dns.set('rcpt.test', 'MX', [{ exchange: 'mx.rcpt.test', preference: 10 }]);
    dns.set('mx.rcpt.test', 'A', ['127.0.0.1']);
    // SQLite is the example's default; on PostgreSQL the example runs as a multi-node install would.
    database = await freshDatabaseUrl(kind);
    server = await startExample('express', {
      MAILPLANE_DNS_SERVERS: dns.address,
      MAILPLANE_MX_PORT: String(sink.port),
      ...(kind === 'postgres' && { MAILPLANE_DATABASE_URL: database.url }),
    });
    const sub = await ok('POST', '/account/subaccount', accountKey(), { name: 'Pools' });
    subKey = { 'x-subaccount-apikey': sub.apiKey };
    const domain = await ok('POST', '/subaccount/domain', subKey, { name: 'pools.test' });
    dns.txt(domain.dkim.host, domain.dkim.textValue);
    dns.cname(domain.returnPath.host, domain.returnPath.textValue);
    dns.cname(domain.track.host, domain.track.textValue);
    dns.txt(domain.dmarc.host, domain.dmarc.textValue);
    expect((await ok('POST', `/subaccount/domain/${domain.id}/verify`, subKey)).verified).toBe(true);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await sink?.close();
    await dns?.close();
    await database?.drop();
  });

  async function send(to: string[], ippool: string): Promise<string[]> {
    const body = {
      from: { email: 'news@pools.test' },
      to: to.map((email) => ({ email })),
      subject: 'Hi',
      textBody: 'Hello',
      ippool,
    };
    return (await ok('POST', '/subaccount/email', subKey, body)).map((e: Json) => e.messageId);
  }
  async function delivered(ids: string[]): Promise<void> {
    for (const id of ids) {
      await vi.waitFor(
        async () => expect((await ok('GET', `/account/message/${id}`, accountKey())).status).toBe('delivered'),
        { timeout: 30_000, interval: 50 },
      );
    }
  }
  const fromSource = (ids: string[]) => {
    const counts: Record<string, number> = {};
    for (const m of sink.received)
      if (ids.some((id) => m.mailFrom.includes(id))) counts[m.remoteAddress] = (counts[m.remoteAddress] ?? 0) + 1;
    return counts;
  };
  const rcpts = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}@rcpt.test`);

  it('splits 20 deliveries 4/6/2/8 over IPs weighted 2, 3, 1, 4', async () => {
    const { allocated } = await ok('PUT', '/account/ip/allocate', accountKey(), {
      ips: ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'],
    });
    const weights = Object.fromEntries(
      allocated.map((ip: Json, i: number) => [`IP_${ip.id}`, String([2, 3, 1, 4][i])]),
    );
    await ok('POST', '/account/ippool', accountKey(), {
      name: 'Weighted',
      ips: allocated.map((ip: Json) => ({ publicIP: ip.publicIp })),
      routingStrategy: 2,
      routingMetaData: JSON.stringify(weights),
    });
    const ids = await send(rcpts('w', 20), 'Weighted');
    await delivered(ids);
    expect(fromSource(ids)).toEqual({ '127.0.0.2': 4, '127.0.0.3': 6, '127.0.0.4': 2, '127.0.0.5': 8 });
  }, 60_000);

  it('sends 50 a day from a warming IP to a provider and overflows the rest; the IP shows its plan', async () => {
    const warm = await ok('PUT', '/account/ip/allocate', accountKey(), { ips: ['127.0.0.6'], autoWarmupEnabled: true });
    await ok('PUT', '/account/ip/allocate', accountKey(), { ips: ['127.0.0.7'] });
    await ok('POST', '/account/ippool', accountKey(), {
      name: 'Spill',
      ips: [{ publicIP: '127.0.0.7' }],
      routingStrategy: 0,
      routingMetaData: '{}',
    });
    await ok('POST', '/account/ippool', accountKey(), {
      name: 'Warm',
      ips: [{ publicIP: '127.0.0.6' }],
      routingStrategy: 0,
      routingMetaData: '{}',
      shouldOverflow: true,
      overflowPoolName: 'Spill',
    });
    const ids = await send(rcpts('c', 53), 'Warm');
    await delivered(ids);
    expect(fromSource(ids)).toEqual({ '127.0.0.6': 50, '127.0.0.7': 3 });
    const view = await ok('GET', `/account/ip/${warm.id}`, accountKey());
    expect(view).toMatchObject({ state: 2, autoWarmupStage: 0 });
    expect(JSON.parse(view.autoWarmupPlan.defaultWarmupPlan)).toMatchObject({
      stage: 0,
      dailyLimit: 50,
      sentToday: 50,
    });
  }, 60_000);

  it('takes IPs in turn (0), routes by mailbox provider (1) and by From domain (3)', async () => {
    const { allocated } = await ok('PUT', '/account/ip/allocate', accountKey(), {
      ips: ['127.0.0.8', '127.0.0.9', '127.0.0.10', '127.0.0.11', '127.0.0.12', '127.0.0.13'],
    });
    const [a, b, c, d, e, f] = allocated.map((ip: Json) => ip.id);
    const members = (...ids: number[]) =>
      allocated.filter((ip: Json) => ids.includes(ip.id)).map((ip: Json) => ({ publicIP: ip.publicIp }));
    const list = (id: number) => JSON.stringify([`IP_${id}`]);
    await ok('POST', '/account/ippool', accountKey(), {
      name: 'Turns',
      ips: members(a, b),
      routingStrategy: 0,
      routingMetaData: '{}',
    });
    await ok('POST', '/account/ippool', accountKey(), {
      name: 'Providers',
      ips: members(c, d),
      routingStrategy: 1,
      routingMetaData: JSON.stringify({ '0': list(c), others: list(d) }),
    });
    await ok('POST', '/account/ippool', accountKey(), {
      name: 'Domains',
      ips: members(e, f),
      routingStrategy: 3,
      routingMetaData: JSON.stringify({ 'pools.test': list(e), others: list(f) }),
    });
    // A custom domain whose MX is Google Workspace counts as Gmail (provider 0).
    dns.set('workspace.test', 'MX', [{ exchange: 'aspmx.l.google.com', preference: 1 }]);
    dns.set('aspmx.l.google.com', 'A', ['127.0.0.1']);

    const turns = await send(rcpts('t', 4), 'Turns');
    const providers = await send(['p0@workspace.test', 'p1@rcpt.test', 'p2@workspace.test'], 'Providers');
    const domains = await send(rcpts('s', 2), 'Domains');
    await delivered([...turns, ...providers, ...domains]);
    expect(fromSource(turns)).toEqual({ '127.0.0.8': 2, '127.0.0.9': 2 });
    expect(fromSource(providers)).toEqual({ '127.0.0.10': 2, '127.0.0.11': 1 });
    expect(fromSource(domains)).toEqual({ '127.0.0.12': 2 });
  }, 60_000);
});
