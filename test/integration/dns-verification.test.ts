import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultDomainRecordsConfig, manualClock } from 'mailplane';
import { checkDomainRecords, createDnsResolver, type ExpectedDnsRecords } from '../../src/dns/index.js';
import { normalizeName } from '../../src/dns/names.js';
import { expectedDnsRecords } from '../../src/domain/records.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';

const config = defaultDomainRecordsConfig;
const publicKey = (): string =>
  generateKeyPairSync('rsa', { modulusLength: 2048 })
    .publicKey.export({ type: 'spki', format: 'der' })
    .toString('base64');
const KEY = publicKey();
const DKIM_VALUE = `v=DKIM1; k=rsa; p=${KEY}`;

let dns: TestDnsServer;
let counter = 0;
let domain: string;
let expected: ExpectedDnsRecords;
const clock = manualClock(Date.UTC(2026, 0, 1));

const resolver = () =>
  createDnsResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 1000, retries: 0, clock });
const check = (options?: { fresh?: boolean }, r = resolver()) => checkDomainRecords(r, expected, options);

/** Publishes every record the way a customer would, the DKIM key split into 255-byte strings. */
function publishAll(name: string): void {
  const full = `v=DKIM1; k=rsa; p=${KEY}`;
  dns.txt(`mp1._domainkey.${name}`, [full.slice(0, 255), full.slice(255)]);
  dns.cname(`mp-bounces.${name}`, config.returnPathTarget);
  dns.cname(`mp-track.${name}`, config.trackingTarget);
  dns.txt(`_dmarc.${name}`, 'v=DMARC1; p=none; rua=mailto:dmarc@' + name);
  dns.set(name, 'NS', ['kim.ns.cloudflare.com', 'rob.ns.cloudflare.com']);
}

beforeAll(async () => {
  dns = await startTestDnsServer();
  // The operator's bounce host carries the SPF record the Return-Path CNAME leads to.
  dns.txt(config.returnPathTarget, `v=spf1 include:${config.spfInclude} ~all`);
});
afterAll(async () => {
  await dns.close();
});
beforeEach(() => {
  domain = `customer${++counter}.test`;
  expected = expectedDnsRecords(domain, config, DKIM_VALUE);
  publishAll(domain);
});

describe('checkDomainRecords', () => {
  it('verifies every record a customer published, and names the DNS provider', async () => {
    const result = await check();
    expect(result).toEqual({
      dkim: { verified: true, reason: '' },
      returnPath: { verified: true, reason: '' },
      track: { verified: true, reason: '' },
      dmarc: { verified: true, reason: '' },
      spf: { verified: true, reason: '' },
      verified: true,
      dnsProvider: 'Cloudflare',
    });
  });

  it('explains a missing DKIM record, and the domain is then not verified', async () => {
    dns.remove(`mp1._domainkey.${domain}`);
    const result = await check();
    expect(result.dkim).toEqual({ verified: false, reason: `DKIM TXT record at mp1._domainkey.${domain} not found` });
    expect(result.verified).toBe(false);
    expect(result.returnPath.verified && result.track.verified && result.dmarc.verified).toBe(true);
  });

  it('explains each other missing record on its own, keeping the domain verified', async () => {
    dns.remove(`mp-bounces.${domain}`);
    dns.remove(`mp-track.${domain}`);
    dns.remove(`_dmarc.${domain}`);
    const result = await check();
    expect(result.returnPath).toEqual({
      verified: false,
      reason: `Return-Path CNAME record at mp-bounces.${domain} not found; add a CNAME to ${config.returnPathTarget}`,
    });
    expect(result.track).toEqual({
      verified: false,
      reason: `tracking CNAME record at mp-track.${domain} not found; add a CNAME to ${config.trackingTarget}`,
    });
    expect(result.dmarc).toEqual({ verified: false, reason: `DMARC TXT record at _dmarc.${domain} not found` });
    expect(result.spf).toEqual({
      verified: false,
      reason: `SPF is read through the Return-Path CNAME record at mp-bounces.${domain}, which is not there; add a CNAME to ${config.returnPathTarget} (the same record as returnPath)`,
    });
    expect(result.verified).toBe(true);
  });

  it("says that the SPF record missing behind a correct Return-Path CNAME is the operator's to publish", async () => {
    dns.remove(config.returnPathTarget);
    const target = normalizeName(config.returnPathTarget);
    expect((await check()).spf).toEqual({
      verified: false,
      reason: `SPF TXT record at mp-bounces.${domain} not found (mp-bounces.${domain} is a CNAME to ${target}); the operator of this mailplane must publish v=spf1 include:${normalizeName(config.spfInclude)} ~all at ${target}`,
    });
  });

  it('refuses a DKIM record with another key', async () => {
    dns.txt(`mp1._domainkey.${domain}`, `v=DKIM1; k=rsa; p=${publicKey()}`);
    const result = await check();
    expect(result.dkim.verified).toBe(false);
    expect(result.dkim.reason).toContain(`the DKIM record at mp1._domainkey.${domain} carries a different public key`);
    expect(result.verified).toBe(false);
  });

  it('tolerates whitespace, folding and pasted quotes in the DKIM record', async () => {
    const folded = KEY.replace(/(.{64})/g, '$1 \t');
    dns.txt(`mp1._domainkey.${domain}`, [`"v=DKIM1;  k=rsa;`, ` p=${folded.slice(0, 200)}" "${folded.slice(200)}"`]);
    expect((await check()).dkim).toEqual({ verified: true, reason: '' });
  });

  it('accepts the DKIM key behind a CNAME at the selector', async () => {
    dns.remove(`mp1._domainkey.${domain}`);
    dns.cname(`mp1._domainkey.${domain}`, `keys.${domain}`);
    dns.txt(`keys.${domain}`, DKIM_VALUE);
    expect((await check()).dkim.verified).toBe(true);
  });

  it('explains other DKIM problems', async () => {
    const host = `mp1._domainkey.${domain}`;
    const reasonFor = async (...records: string[]) => {
      dns.txt(host, ...records);
      return (await check()).dkim.reason;
    };
    expect(await reasonFor('google-site-verification=abc')).toContain(
      `the TXT record at ${host} is not a DKIM key record`,
    );
    expect(await reasonFor(DKIM_VALUE, `v=DKIM1; p=${publicKey()}`)).toBe(
      `found 2 DKIM records at ${host}; keep only the one mailplane shows`,
    );
    expect(await reasonFor('v=DKIM1; p=')).toContain('revoked');
    expect(await reasonFor(`v=DKIM1; k=ed25519; p=${KEY}`)).toContain('key type ed25519, expected rsa');
    expect(await reasonFor('v=DKIM1; k=rsa; p=%%%')).toContain('cannot be read: the p= value is not base64');
  });

  it('explains a CNAME to the wrong host', async () => {
    dns.cname(`mp-track.${domain}`, 'track.other-esp.test');
    expect((await check()).track).toEqual({
      verified: false,
      reason: `found a CNAME at mp-track.${domain} to track.other-esp.test, expected ${config.trackingTarget}`,
    });
  });

  it('hints at a proxied name when the provider is Cloudflare and the name has no CNAME', async () => {
    dns.remove(`mp-track.${domain}`);
    dns.set(`mp-track.${domain}`, 'A', ['104.16.0.1']);
    const reason = (await check()).track.reason;
    expect(reason).toContain(`no CNAME record at mp-track.${domain}`);
    expect(reason).toContain('set it to DNS only');
  });

  it('spots records published under the domain twice', async () => {
    dns.remove(`mp1._domainkey.${domain}`);
    dns.txt(`mp1._domainkey.${domain}.${domain}`, DKIM_VALUE);
    dns.remove(`mp-bounces.${domain}`);
    dns.cname(`mp-bounces.${domain}.${domain}`, config.returnPathTarget);
    const result = await check();
    expect(result.dkim.reason).toContain(`found one at mp1._domainkey.${domain}.${domain} instead`);
    expect(result.dkim.reason).toContain('enter only mp1._domainkey as the name');
    expect(result.returnPath.reason).toContain('enter only mp-bounces as the name');
  });

  it('checks DMARC syntax and count', async () => {
    const host = `_dmarc.${domain}`;
    dns.txt(host, 'v=DMARC1; p=nothing');
    expect((await check()).dmarc.reason).toBe(
      `the DMARC record at ${host} is not valid: p=nothing is not none, quarantine or reject`,
    );
    dns.txt(host, 'v=DMARC1; p=none', 'v=DMARC1; p=reject');
    expect((await check()).dmarc.reason).toContain('found 2 DMARC records');
    dns.txt(host, 'some other text');
    expect((await check()).dmarc.reason).toContain('is not a DMARC record');
  });

  it('checks SPF published directly at the host', async () => {
    const spfHost = `spf-host.${domain}`;
    const direct = { ...expected, spf: { host: spfHost, include: config.spfInclude } };
    dns.txt(spfHost, 'v=spf1 include:_spf.google.com ~all');
    expect((await checkDomainRecords(resolver(), direct)).spf.reason).toContain(`add include:${config.spfInclude}`);
    dns.txt(spfHost, `v=spf1 include:_spf.google.com include:${config.spfInclude} ~all`, 'unrelated');
    expect((await checkDomainRecords(resolver(), direct)).spf).toEqual({ verified: true, reason: '' });
    dns.txt(spfHost, 'v=spf1 -all', `v=spf1 include:${config.spfInclude} -all`);
    expect((await checkDomainRecords(resolver(), direct)).spf.reason).toContain('found 2 SPF records');
  });

  it('turns SERVFAIL, silence and malformed answers into reasons, checking the rest', async () => {
    dns.behave(`mp1._domainkey.${domain}`, 'servfail');
    dns.behave(`_dmarc.${domain}`, 'silent');
    dns.behave(`mp-track.${domain}`, 'garbage');
    const result = await check();
    expect(result.dkim.reason).toContain(`the DNS servers of mp1._domainkey.${domain} failed to answer (SERVFAIL)`);
    expect(result.dmarc.reason).toBe(`the resolver timed out looking up _dmarc.${domain}; try again later`);
    expect(result.track.reason).toContain(`the DNS answer for mp-track.${domain} was malformed`);
    expect(result.returnPath.verified).toBe(true);
    expect(result.verified).toBe(false);
  });

  it('explains a CNAME loop', async () => {
    dns.remove(`mp1._domainkey.${domain}`);
    dns.cname(`mp1._domainkey.${domain}`, `a.${domain}`);
    dns.cname(`a.${domain}`, `mp1._domainkey.${domain}`);
    expect((await check()).dkim.reason).toContain(`the CNAME records at mp1._domainkey.${domain} form a loop`);
  });

  it('handles long and oversized TXT records, keeping the reason short', async () => {
    // Over the resolver's 16 KiB answer cap: not read at all, and said so.
    dns.txt(
      `mp1._domainkey.${domain}`,
      Array.from({ length: 100 }, () => 'z'.repeat(255)),
    );
    // Long, but under the 4,096-character TXT cap: read, and judged.
    dns.txt(`_dmarc.${domain}`, `v=DMARC1; p=${'q'.repeat(4_000)}`);
    // dns2's encoder needs a good part of a second for answers this size: allow for it.
    const patient = createDnsResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 10_000, clock });
    const result = await check({}, patient);
    expect(result.dkim.reason).toContain('was malformed');
    expect(result.dkim.reason.length).toBeLessThan(200);
    expect(result.dmarc.reason).toContain('is not none, quarantine or reject');
    expect(result.dmarc.reason.length).toBeLessThan(200);
  });

  it('leaves records it was not asked about unverified with an empty reason', async () => {
    const result = await checkDomainRecords(resolver(), { domain, dkim: expected.dkim });
    expect(result).toMatchObject({
      dkim: { verified: true },
      returnPath: { verified: false, reason: '' },
      track: { verified: false, reason: '' },
      dmarc: { verified: false, reason: '' },
      spf: { verified: false, reason: '' },
    });
  });

  it('detects the provider of a subdomain from its parent zone, and gives empty when unknown', async () => {
    const sub = `mail.${domain}`;
    publishAll(sub);
    dns.remove(sub, 'NS');
    expect((await checkDomainRecords(resolver(), expectedDnsRecords(sub, config, DKIM_VALUE))).dnsProvider).toBe(
      'Cloudflare',
    );
    dns.set(domain, 'NS', ['ns1.small-host.test']);
    expect((await check()).dnsProvider).toBe('');
  });

  it('does not ask the server again within the TTL unless asked for fresh answers', async () => {
    const shared = resolver();
    await check({}, shared);
    const first = dns.log.length;
    expect(first).toBeGreaterThan(0);
    dns.remove(`mp1._domainkey.${domain}`);
    expect((await check({}, shared)).dkim.verified).toBe(true);
    expect(dns.log.length).toBe(first);
    expect((await check({ fresh: true }, shared)).dkim.verified).toBe(false);
    expect(dns.log.length).toBeGreaterThan(first);
  });
});
