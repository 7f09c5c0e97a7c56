import { createSocket, type Socket } from 'node:dgram';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { manualClock } from 'mailplane';
import { createDnsResolver, type DnsResolverOptions } from '../../src/dns/index.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';

let dns: TestDnsServer;
let clock: ReturnType<typeof manualClock>;

beforeAll(async () => {
  dns = await startTestDnsServer();
});
afterAll(async () => {
  await dns.close();
});
beforeEach(() => {
  dns.resetLog();
  clock = manualClock(Date.UTC(2026, 0, 1));
});

// Short timeouts keep the failure paths fast (yet roomy for a loaded machine); the clock drives only the cache.
const resolverFor = (options: DnsResolverOptions = {}) =>
  createDnsResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 500, retries: 1, clock, ...options });

describe('DNS resolver against a real dns2 server', () => {
  it('joins the character-strings of each TXT record', async () => {
    dns.txt('txt.r.test', ['v=DKIM1; k=rsa; ', 'p=AAAA', 'BBBB'], 'site-verification=1');
    const result = await resolverFor().resolveTxt('TXT.R.TEST.');
    expect(result).toMatchObject({
      ok: true,
      name: 'txt.r.test',
      records: ['v=DKIM1; k=rsa; p=AAAABBBB', 'site-verification=1'],
    });
  });

  it('follows CNAME chains for other types, and reads the CNAME itself for type CNAME', async () => {
    dns.cname('alias.r.test', 'middle.r.test');
    dns.cname('middle.r.test', 'real.r.test');
    dns.txt('real.r.test', 'hello');
    const resolver = resolverFor();
    expect(await resolver.resolveTxt('alias.r.test')).toMatchObject({
      ok: true,
      chain: ['middle.r.test', 'real.r.test'],
      records: ['hello'],
    });
    expect(await resolver.resolveCname('alias.r.test')).toMatchObject({
      ok: true,
      chain: [],
      records: ['middle.r.test'],
    });
  });

  it('asks again for a CNAME target the answer does not cover', async () => {
    dns.cname('partial.r.test', 'target.r.test');
    dns.txt('target.r.test', 'found');
    dns.behave('partial.r.test', 'cname-only');
    const result = await resolverFor().resolveTxt('partial.r.test');
    expect(result).toMatchObject({ ok: true, chain: ['target.r.test'], records: ['found'] });
    expect(dns.queries('target.r.test', 'TXT')).toBe(1);
  });

  it('reads MX (most preferred first), NS, A and AAAA', async () => {
    dns.set('mail.r.test', 'MX', [
      { exchange: 'mx2.r.test', preference: 20 },
      { exchange: 'mx1.r.test', preference: 10 },
    ]);
    dns.set('mail.r.test', 'NS', ['ns1.r.test', 'ns2.r.test']);
    dns.set('mail.r.test', 'A', ['192.0.2.1']);
    dns.set('mail.r.test', 'AAAA', ['2001:db8::1']);
    const resolver = resolverFor();
    expect(await resolver.resolveMx('mail.r.test')).toMatchObject({
      ok: true,
      records: [
        { exchange: 'mx1.r.test', preference: 10 },
        { exchange: 'mx2.r.test', preference: 20 },
      ],
    });
    expect(await resolver.resolveNs('mail.r.test')).toMatchObject({ ok: true, records: ['ns1.r.test', 'ns2.r.test'] });
    expect(await resolver.resolveA('mail.r.test')).toMatchObject({ ok: true, records: ['192.0.2.1'] });
    expect(await resolver.resolveAaaa('mail.r.test')).toMatchObject({ ok: true, records: ['2001:db8::1'] });
  });

  it('tells a missing name from a name without that type', async () => {
    dns.txt('exists.r.test', 'x');
    const resolver = resolverFor();
    expect(await resolver.resolveTxt('missing.r.test')).toMatchObject({ ok: false, reason: 'nxdomain' });
    expect(await resolver.resolveMx('exists.r.test')).toMatchObject({ ok: false, reason: 'nodata' });
  });

  it('reports SERVFAIL and REFUSED', async () => {
    dns.behave('broken.r.test', 'servfail');
    dns.behave('refusing.r.test', 'refused');
    const resolver = resolverFor();
    expect(await resolver.resolveTxt('broken.r.test')).toMatchObject({ ok: false, reason: 'servfail' });
    expect(await resolver.resolveTxt('refusing.r.test')).toMatchObject({ ok: false, reason: 'refused' });
  });

  it('gives up on a server that never answers after its retries', async () => {
    dns.behave('silent.r.test', 'silent');
    const result = await resolverFor({ retries: 2 }).resolveTxt('silent.r.test');
    expect(result).toMatchObject({ ok: false, reason: 'timeout' });
    expect(dns.queries('silent.r.test')).toBe(3);
  });

  it('retries after a dropped packet', async () => {
    dns.txt('lossy.r.test', 'eventually');
    dns.behave('lossy.r.test', { drop: 1 });
    const result = await resolverFor({ retries: 1 }).resolveTxt('lossy.r.test');
    expect(result).toMatchObject({ ok: true, records: ['eventually'] });
    expect(dns.queries('lossy.r.test')).toBe(2);
  });

  it('moves on to the next server when one fails', async () => {
    const dead = createSocket('udp4');
    await new Promise<void>((resolve) => dead.bind(0, '127.0.0.1', resolve));
    try {
      dns.txt('fallback.r.test', 'second server');
      const resolver = resolverFor({
        servers: [
          { host: '127.0.0.1', port: (dead as Socket).address().port },
          { host: dns.host, port: dns.port },
        ],
      });
      expect(await resolver.resolveTxt('fallback.r.test')).toMatchObject({ ok: true, records: ['second server'] });
    } finally {
      dead.close();
    }
  });

  it('reports a closed port as unreachable without waiting for every timeout', async () => {
    const probe = createSocket('udp4');
    await new Promise<void>((resolve) => probe.bind(0, '127.0.0.1', resolve));
    const port = probe.address().port;
    probe.close();
    const result = await resolverFor({
      servers: [{ host: '127.0.0.1', port }],
      timeoutMs: 5000,
      retries: 0,
    }).resolveTxt('x.r.test');
    expect(result).toMatchObject({ ok: false, reason: 'unreachable' });
  });

  it('fetches an answer too large for UDP over TCP', async () => {
    const records = Array.from({ length: 5 }, (_, i) => String(i).repeat(1000));
    dns.txt('huge.r.test', ...records);
    // dns2's encoder needs a good part of a second for large answers: allow for it.
    const result = await resolverFor({ timeoutMs: 10_000 }).resolveTxt('huge.r.test');
    expect(result).toMatchObject({ ok: true, records });
    expect(dns.log.filter((entry) => entry.name === 'huge.r.test').map((entry) => entry.transport)).toEqual([
      'udp',
      'tcp',
    ]);
  });

  it('reports malformed answers instead of crashing', async () => {
    dns.behave('garbage.r.test', 'garbage');
    dns.txt('corrupt.r.test', 'x'.repeat(100));
    dns.behave('corrupt.r.test', 'corrupt');
    const resolver = resolverFor();
    expect(await resolver.resolveTxt('garbage.r.test')).toMatchObject({ ok: false, reason: 'malformed' });
    expect(await resolver.resolveTxt('corrupt.r.test')).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('stops at a CNAME loop', async () => {
    dns.cname('loop-a.r.test', 'loop-b.r.test');
    dns.cname('loop-b.r.test', 'loop-a.r.test');
    dns.cname('self.r.test', 'self.r.test');
    const resolver = resolverFor();
    expect(await resolver.resolveTxt('loop-a.r.test')).toMatchObject({ ok: false, reason: 'cname-loop' });
    expect(await resolver.resolveTxt('self.r.test')).toMatchObject({ ok: false, reason: 'cname-loop' });
  });

  it('stops at a CNAME chain longer than it follows', async () => {
    for (let i = 0; i < 12; i++) dns.cname(`hop${i}.r.test`, `hop${i + 1}.r.test`);
    dns.txt('hop12.r.test', 'far away');
    expect(await resolverFor().resolveTxt('hop0.r.test')).toMatchObject({ ok: false, reason: 'cname-loop' });
  });

  it('refuses names that cannot be queried without sending anything', async () => {
    const resolver = resolverFor();
    for (const name of ['', 'has space.r.test', `${'a'.repeat(64)}.r.test`, 'x'.repeat(300)]) {
      expect(await resolver.resolveTxt(name)).toMatchObject({ ok: false, reason: 'invalid-name' });
    }
    expect(dns.queries()).toBe(0);
  });

  it('needs servers given as addresses', () => {
    expect(() => createDnsResolver({ servers: [] })).toThrow(/no DNS servers/);
    expect(() => createDnsResolver({ servers: [{ host: 'dns.example.com', port: 53 }] })).toThrow(/not an IP address/);
    expect(() => createDnsResolver({ servers: [{ host: '127.0.0.1', port: 0 }] })).toThrow(/not an IP address/);
  });
});

describe('DNS resolver cache', () => {
  it('answers again within the TTL without asking the server, and asks after it', async () => {
    dns.set('cached.r.test', 'TXT', ['v1'], 60);
    const resolver = resolverFor();
    await resolver.resolveTxt('cached.r.test');
    dns.txt('cached.r.test', 'v2');
    expect(await resolver.resolveTxt('cached.r.test')).toMatchObject({ records: ['v1'] });
    expect(dns.queries('cached.r.test')).toBe(1);
    clock.advance(61_000);
    expect(await resolver.resolveTxt('cached.r.test')).toMatchObject({ records: ['v2'] });
    expect(dns.queries('cached.r.test')).toBe(2);
  });

  it('caps the TTL', async () => {
    dns.set('long.r.test', 'TXT', ['v1'], 86_400);
    const resolver = resolverFor({ cacheTtlCapMs: 10_000 });
    await resolver.resolveTxt('long.r.test');
    clock.advance(11_000);
    await resolver.resolveTxt('long.r.test');
    expect(dns.queries('long.r.test')).toBe(2);
  });

  it('caches "not found" by the SOA, capped, and never caches failures', async () => {
    dns.negativeTtl = 3600;
    dns.behave('flaky.r.test', 'servfail');
    const resolver = resolverFor({ negativeCacheTtlCapMs: 5_000 });
    await resolver.resolveTxt('absent.r.test');
    await resolver.resolveTxt('absent.r.test');
    expect(dns.queries('absent.r.test')).toBe(1);
    clock.advance(6_000);
    await resolver.resolveTxt('absent.r.test');
    expect(dns.queries('absent.r.test')).toBe(2);
    await resolver.resolveTxt('flaky.r.test');
    await resolver.resolveTxt('flaky.r.test');
    expect(dns.queries('flaky.r.test')).toBe(2);
    dns.negativeTtl = 60;
  });

  it('bypasses the cache when asked for a fresh answer, and can be cleared', async () => {
    dns.txt('fresh.r.test', 'v1');
    const resolver = resolverFor();
    await resolver.resolveTxt('fresh.r.test');
    dns.txt('fresh.r.test', 'v2');
    expect(await resolver.resolveTxt('fresh.r.test', { fresh: true })).toMatchObject({ records: ['v2'] });
    dns.txt('fresh.r.test', 'v3');
    resolver.clearCache();
    expect(await resolver.resolveTxt('fresh.r.test')).toMatchObject({ records: ['v3'] });
    expect(dns.queries('fresh.r.test')).toBe(3);
  });

  it('keeps at most the configured number of answers', async () => {
    dns.txt('one.r.test', '1');
    dns.txt('two.r.test', '2');
    const resolver = resolverFor({ cacheMaxEntries: 1 });
    await resolver.resolveTxt('one.r.test');
    await resolver.resolveTxt('two.r.test');
    await resolver.resolveTxt('one.r.test');
    expect(dns.queries('one.r.test')).toBe(2);
  });

  it('sends one query for concurrent lookups of the same name', async () => {
    dns.txt('popular.r.test', 'x');
    const resolver = resolverFor();
    const results = await Promise.all(Array.from({ length: 20 }, () => resolver.resolveTxt('popular.r.test')));
    expect(results.every((result) => result.ok)).toBe(true);
    expect(dns.queries('popular.r.test')).toBe(1);
  });
});
