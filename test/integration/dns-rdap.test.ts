import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultDomainRecordsConfig } from 'mailplane';
import { createDnsResolver, createRdapLookup, verifyDomainDns } from '../../src/dns/index.js';
import { expectedDnsRecords } from '../../src/domain/records.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startTestRdapServer, type TestRdapServer } from '../support/rdap-server.js';

let rdap: TestRdapServer;
let dns: TestDnsServer;
const errors: string[] = [];

beforeAll(async () => {
  rdap = await startTestRdapServer();
  dns = await startTestDnsServer();
});
afterAll(async () => {
  await rdap.close();
  await dns.close();
});

const lookup = (timeoutMs = 2000) =>
  createRdapLookup({
    baseUrl: `${rdap.baseUrl}/`,
    timeoutMs,
    onError: (domain, message) => errors.push(`${domain}: ${message}`),
  });

describe('RDAP registration date', () => {
  it('reads the registration event', async () => {
    rdap.answer('registered.test', { registered: '1995-08-14T04:00:00Z' });
    expect(await lookup()('Registered.TEST')).toBe('1995-08-14');
    expect(rdap.requests.at(-1)).toBe('/domain/registered.test');
  });

  it('asks the parent domain for a subdomain', async () => {
    rdap.answer('parent.test', { registered: '2010-01-02T00:00:00Z' });
    expect(await lookup()('mail.eu.parent.test')).toBe('2010-01-02');
    expect(rdap.requests.slice(-3)).toEqual([
      '/domain/mail.eu.parent.test',
      '/domain/eu.parent.test',
      '/domain/parent.test',
    ]);
  });

  it('gives empty for an unknown domain, an error status, garbage and an answer without the event', async () => {
    rdap.answer('broken.test', { status: 500, body: '{}' });
    rdap.answer('garbage.test', 'garbage');
    rdap.answer('noevent.test', {
      status: 200,
      body: JSON.stringify({
        objectClassName: 'domain',
        events: [{ eventAction: 'expiration', eventDate: '2030-01-01T00:00:00Z' }],
      }),
    });
    errors.length = 0;
    for (const name of ['unknown.test', 'broken.test', 'garbage.test', 'noevent.test', 'not a domain', 'localhost']) {
      expect(await lookup()(name), name).toBe('');
    }
    expect(errors).toEqual([
      'unknown.test: no RDAP record for unknown.test',
      'broken.test: RDAP answered 500 for broken.test',
      'garbage.test: the RDAP answer for garbage.test is not JSON',
      'noevent.test: the RDAP answer for noevent.test has no registration date',
      'not a domain: not a domain name',
      'localhost: not a domain name',
    ]);
  });

  it('gives empty when the answer never completes, within its timeout', async () => {
    rdap.answer('slow.test', 'hang');
    errors.length = 0;
    expect(await lookup(200)('slow.test')).toBe('');
    expect(errors).toEqual(['slow.test: no RDAP answer within 200 ms']);
  });

  it('refuses a huge answer', async () => {
    rdap.answer('huge.test', 'huge');
    errors.length = 0;
    expect(await lookup()('huge.test')).toBe('');
    expect(errors[0]).toContain('larger than');
  });

  it('gives empty when the RDAP server cannot be reached', async () => {
    const closed = await startTestRdapServer();
    const baseUrl = closed.baseUrl;
    await closed.close();
    expect(await createRdapLookup({ baseUrl, timeoutMs: 1000 })('registered.test')).toBe('');
  });
});

describe('verifyDomainDns', () => {
  const config = defaultDomainRecordsConfig;
  const dkim = 'v=DKIM1; k=rsa; p=QUJDREVGR0g=';
  const resolver = () =>
    createDnsResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 1000, retries: 0 });

  it('adds the registration date to the record checks', async () => {
    dns.txt('mp1._domainkey.dated.test', dkim);
    rdap.answer('dated.test', { registered: '2001-09-09T01:46:40Z' });
    const result = await verifyDomainDns({
      resolver: resolver(),
      expected: expectedDnsRecords('dated.test', config, dkim),
      registrationLookup: lookup(),
    });
    expect(result).toMatchObject({
      verified: true,
      dkim: { verified: true, reason: '' },
      domainRegisteredDate: '2001-09-09',
    });
  });

  it('verifies even when the registration lookup fails, hangs or misbehaves', async () => {
    dns.txt('mp1._domainkey.undated.test', dkim);
    rdap.answer('undated.test', 'hang');
    const expected = expectedDnsRecords('undated.test', config, dkim);
    const hanging = await verifyDomainDns({ resolver: resolver(), expected, registrationLookup: lookup(200) });
    expect(hanging).toMatchObject({ verified: true, domainRegisteredDate: '' });
    const throwing = await verifyDomainDns({
      resolver: resolver(),
      expected,
      registrationLookup: () => Promise.reject(new Error('down')),
    });
    expect(throwing).toMatchObject({ verified: true, domainRegisteredDate: '' });
    const nonsense = await verifyDomainDns({
      resolver: resolver(),
      expected,
      registrationLookup: async () => 'last tuesday',
    });
    expect(nonsense).toMatchObject({ verified: true, domainRegisteredDate: '' });
    expect(await verifyDomainDns({ resolver: resolver(), expected })).toMatchObject({
      verified: true,
      domainRegisteredDate: '',
    });
  });
});
