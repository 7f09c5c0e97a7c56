import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultDomainRecordsConfig } from 'mailplane';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startExample, type ExampleServer } from '../support/example-server.js';
import { schemaErrors } from '../support/openapi.js';

describe('sending-domain verification through the express example', () => {
  let dns: TestDnsServer;
  let server: ExampleServer;
  beforeAll(async () => {
    dns = await startTestDnsServer();
    dns.txt(
      defaultDomainRecordsConfig.returnPathTarget,
      `v=spf1 include:${defaultDomainRecordsConfig.spfInclude} ~all`,
    );
    server = await startExample('express', { MAILPLANE_DNS_SERVERS: dns.address });
  });
  afterAll(async () => {
    await server?.stop();
    await dns?.close();
  });

  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
    return { status: response.status, body: (await response.json()) as any };
  };

  it('verifies a domain over HTTP once its records are published on the DNS server', async () => {
    const sub = (
      await call('POST', '/account/subaccount', { 'x-account-apikey': server.accountKey }, { name: 'Hooli' })
    ).body.apiKey;
    const key = { 'x-subaccount-apikey': sub };
    const domain = (await call('POST', '/subaccount/domain', key, { name: 'Mail.Hooli.test' })).body;

    const before = await call('POST', `/subaccount/domain/${domain.id}/verify`, key);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({
      verified: false,
      dkimFailureReason: 'DKIM TXT record at mp1._domainkey.mail.hooli.test not found',
    });

    dns.txt(domain.dkim.host, domain.dkim.textValue);
    dns.cname(domain.returnPath.host, domain.returnPath.textValue);
    dns.cname(domain.track.host, domain.track.textValue);
    dns.txt(domain.dmarc.host, domain.dmarc.textValue);
    dns.set('hooli.test', 'NS', ['ns-1.awsdns-01.org', 'ns-2.awsdns-02.com']);

    const after = await call('POST', `/subaccount/domain/${domain.id}/verify`, key);
    expect(after.status).toBe(200);
    expect(schemaErrors('Domain', after.body)).toEqual([]);
    expect(after.body).toMatchObject({
      verified: true,
      dkimVerified: true,
      returnPathVerified: true,
      trackVerified: true,
      dmarcVerified: true,
      spfVerified: true,
      dkimFailureReason: '',
    });
    expect(after.body.dnsProvider).toBe('Amazon Route 53');
    const read = await call('GET', `/subaccount/domain/${domain.id}`, key);
    expect(read.body).toEqual(after.body);
    expect(
      (await call('POST', `/subaccount/domain/${domain.id}/verify`, { 'x-account-apikey': server.accountKey })).status,
    ).toBe(401);
  });
});
