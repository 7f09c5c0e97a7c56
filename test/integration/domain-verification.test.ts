import { generateKeyPairSync } from 'node:crypto';
import { contextOf } from '../../src/instance-context.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultDomainRecordsConfig, manualClock } from 'mailplane';
import { nextDomainCheckAt } from '../../src/domain/verification-schedule.js';
import type { DomainRecord } from '../../src/store/index.js';
import { createTestApi, useTestApi } from '../support/api.js';
import { expectAuthBattery, expectError } from '../support/bad-input.js';
import { storeKinds } from '../support/databases.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { schemaErrors } from '../support/openapi.js';
import { startTestRdapServer, type TestRdapServer } from '../support/rdap-server.js';

const config = defaultDomainRecordsConfig;
let dns: TestDnsServer;
let rdap: TestRdapServer;
let counter = 0;

beforeAll(async () => {
  dns = await startTestDnsServer();
  rdap = await startTestRdapServer();
  // The operator's bounce host carries the SPF record the Return-Path CNAME leads to.
  dns.txt(config.returnPathTarget, `v=spf1 include:${config.spfInclude} ~all`);
});
afterAll(async () => {
  await dns?.close();
  await rdap?.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the Domain resource as a client reads it
type Domain = any;

/** Publishes the records the domain resource lists, as a customer copies them into a DNS console. */
function publish(domain: Domain): void {
  dns.txt(domain.dkim.host, domain.dkim.textValue);
  dns.cname(domain.returnPath.host, domain.returnPath.textValue);
  dns.cname(domain.track.host, domain.track.textValue);
  dns.txt(domain.dmarc.host, domain.dmarc.textValue);
  dns.set(domain.name, 'NS', ['kim.ns.cloudflare.com', 'rob.ns.cloudflare.com']);
}

const VERIFIED = {
  dkimVerified: true,
  spfVerified: true,
  dmarcVerified: true,
  returnPathVerified: true,
  trackVerified: true,
  verified: true,
  dkimFailureReason: '',
  spfFailureReason: '',
  dmarcFailureReason: '',
  trackFailureReason: '',
  returnPathFailureReason: '',
};

describe.each(storeKinds)('POST /subaccount/domain/{id}/verify on %s', (kind) => {
  // A function: the DNS and RDAP servers start in the file's beforeAll, after this line runs.
  const api = useTestApi(kind, () => ({
    dns: { servers: [{ host: dns.host, port: dns.port }], timeoutMs: 300, retries: 1, rdapBaseUrl: rdap.baseUrl },
  }));
  let sub: string;
  let name: string;
  let domain: Domain;
  beforeEach(async () => {
    sub = (await api.createSubAccount('sender')).apiKey;
    name = `shop${++counter}-${kind}.test`;
    rdap.answer(name, { registered: '2011-03-04T05:06:07Z' });
    domain = (await api.call('POST', '/subaccount/domain', { sub, body: { name } })).body;
  });

  const verify = (id: unknown = domain.id, key = sub) =>
    api.call('POST', `/subaccount/domain/${id}/verify`, { sub: key });
  const read = async () => (await api.call('GET', `/subaccount/domain/${domain.id}`, { sub })).body;

  it('verifies a domain whose records are published, naming its DNS provider and registration date', async () => {
    publish(domain);
    const verified = await verify();
    expect(verified.status).toBe(200);
    expect(schemaErrors('Domain', verified.body)).toEqual([]);
    expect(verified.body).toMatchObject({
      ...VERIFIED,
      id: domain.id,
      name,
      dnsProvider: 'Cloudflare',
      domainRegisteredDate: '2011-03-04',
    });
    expect(await read()).toEqual(verified.body);
  });

  it('unverifies a domain whose DKIM record disappears, says why, and keeps the known registration date', async () => {
    publish(domain);
    expect((await verify()).body.verified).toBe(true);
    dns.remove(domain.dkim.host);
    rdap.answer(name, { status: 500, body: 'down' });
    const after = (await verify()).body;
    expect(after).toMatchObject({
      verified: false,
      dkimVerified: false,
      dkimFailureReason: `DKIM TXT record at mp1._domainkey.${name} not found`,
      returnPathVerified: true,
      trackVerified: true,
      dmarcVerified: true,
      spfVerified: true,
      domainRegisteredDate: '2011-03-04',
    });
    expect(await read()).toEqual(after);
  });

  it('shows the reason of every failing record in the resource', async () => {
    publish(domain);
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .publicKey.export({ type: 'spki', format: 'der' })
      .toString('base64');
    dns.txt(domain.dkim.host, `v=DKIM1; k=rsa; p=${otherKey}`);
    dns.cname(domain.returnPath.host, 'bounces.elsewhere.example');
    dns.remove(domain.dmarc.host);
    dns.behave(domain.track.host, 'servfail');
    const body = (await verify()).body;
    expect(schemaErrors('Domain', body)).toEqual([]);
    expect(body.verified).toBe(false);
    expect(body.dkimFailureReason).toMatch(
      new RegExp(`^the DKIM record at mp1\\._domainkey\\.${name.replace('.', '\\.')} carries a different public key`),
    );
    expect(body.returnPathFailureReason).toBe(
      `found a CNAME at mp-bounces.${name} to bounces.elsewhere.example, expected ${config.returnPathTarget}`,
    );
    // SPF is read through the Return-Path CNAME, which now leads to a host without SPF.
    expect(body.spfVerified).toBe(false);
    expect(body.spfFailureReason).toBe(
      `SPF is read through the Return-Path CNAME at mp-bounces.${name}, which leads to bounces.elsewhere.example, expected ${config.returnPathTarget}; point the CNAME to ${config.returnPathTarget}`,
    );
    expect(body.dmarcFailureReason).toBe(`DMARC TXT record at _dmarc.${name} not found`);
    expect(body.trackFailureReason).toMatch(/failed to answer \(SERVFAIL\)/);
    expect(await read()).toEqual(body);
    dns.behave(domain.track.host, 'normal');
  });

  it('reports a DNS timeout as the reason, and an RDAP failure leaves the date empty without blocking', async () => {
    publish(domain);
    rdap.answer(name, 'garbage');
    dns.behave(domain.dkim.host, 'silent');
    const body = (await verify()).body;
    expect(body).toMatchObject({
      verified: false,
      dkimFailureReason: `the resolver timed out looking up mp1._domainkey.${name}; try again later`,
    });
    expect(body.domainRegisteredDate).toBe('');
    expect(body.returnPathVerified && body.trackVerified && body.dmarcVerified).toBe(true);
    dns.behave(domain.dkim.host, 'normal');
    expect((await verify()).body.verified).toBe(true);
  });

  it('runs the check once for 100 concurrent triggers', async () => {
    publish(domain);
    // The check stays in flight (its registration lookup answers after a second) until every one of
    // the 100 requests has passed the router and reached it, however slowly this machine runs them.
    rdap.answer(name, { registered: '2011-03-04T05:06:07Z', afterMs: 1000 });
    dns.resetLog();
    const rdapBefore = rdap.requests.length;
    const results = await Promise.all(Array.from({ length: 100 }, () => verify()));
    expect(results.map((r) => r.status)).toEqual(Array(100).fill(200));
    expect(results.every((r) => r.body.verified === true)).toBe(true);
    expect(dns.queries(domain.dkim.host, 'TXT')).toBe(1);
    expect(dns.queries(domain.track.host, 'CNAME')).toBe(1);
    expect(dns.queries(`_dmarc.${name}`, 'TXT')).toBe(1);
    // The resolver would merge concurrent DNS queries anyway; the registration date shows one check ran.
    expect(rdap.requests.slice(rdapBefore)).toEqual([`/domain/${name}`]);
  });

  it('answers 406 for another sub-account, unknown and malformed ids, and checks nothing', async () => {
    publish(domain);
    const otherSub = (
      await api.call('POST', '/account/subaccount', { account: api.accountKey, body: { name: 'other' } })
    ).body.apiKey;
    const other = await api.mailplane.createAccount({ name: 'other tenant' });
    const foreignSub = (await api.call('POST', '/account/subaccount', { account: other.apiKey, body: { name: 'x' } }))
      .body.apiKey;
    dns.resetLog();
    expectError(await verify(domain.id, otherSub), 406, 'DOMAIN_NOT_FOUND');
    expectError(await verify(domain.id, foreignSub), 406, 'DOMAIN_NOT_FOUND');
    for (const id of [domain.id + 1000, 'abc', '0', '-1', '1.5', '99999999999999999999'])
      expectError(await verify(id), 406, 'DOMAIN_NOT_FOUND');
    expect(dns.log).toEqual([]);
    expect(await read()).toMatchObject({ verified: false, dkimFailureReason: '', dnsProvider: '' });
  });

  it('takes no body: whatever is sent is ignored, never a 500', async () => {
    for (const raw of ['{"name":', '{"verified":true}', '[]']) {
      const result = await api.call('POST', `/subaccount/domain/${domain.id}/verify`, { sub, raw });
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ id: domain.id, verified: false });
    }
  });

  it('refuses a missing, wrong or account key with 401', async () => {
    await expectAuthBattery(api, 'POST', `/subaccount/domain/${domain.id}/verify`, 'sub', api.accountKey);
    expect((await read()).verified).toBe(false);
  });

  it('does not look up the registration date when RDAP is disabled', async () => {
    const quiet = await createTestApi(kind, {
      dns: { servers: [{ host: dns.host, port: dns.port }], timeoutMs: 300, retries: 1, rdapBaseUrl: null },
    });
    try {
      const key = (await quiet.call('POST', '/account/subaccount', { account: quiet.accountKey, body: { name: 's' } }))
        .body.apiKey;
      const own = (await quiet.call('POST', '/subaccount/domain', { sub: key, body: { name } })).body;
      publish(own);
      const before = rdap.requests.length;
      const body = (await quiet.call('POST', `/subaccount/domain/${own.id}/verify`, { sub: key })).body;
      expect(body).toMatchObject({ verified: true, domainRegisteredDate: '' });
      expect(rdap.requests.length).toBe(before);
    } finally {
      await quiet.close();
    }
  });
});

describe.each(storeKinds)('the verification schedule on %s', (kind) => {
  const start = Date.UTC(2026, 0, 1);
  let clock: ReturnType<typeof manualClock>;
  const api = useTestApi(kind, () => {
    clock = manualClock(start);
    return {
      clock,
      dns: { servers: [{ host: dns.host, port: dns.port }], timeoutMs: 300, retries: 1, rdapBaseUrl: rdap.baseUrl },
      jobs: { pollIntervalMs: 25 },
    };
  });
  let sub: string;
  beforeEach(async () => {
    sub = (await api.createSubAccount('sender')).apiKey;
  });

  const store = () => contextOf(api.mailplane).store;
  /** Moves the clock and lets the runner find what became due. */
  const advance = (ms: number) => {
    clock.advance(ms);
    contextOf(api.mailplane).jobs.notify();
  };
  const subAccountIdOf = async (key: string) => {
    const list = (await api.call('GET', '/account/subaccount', { account: api.accountKey })).body as {
      id: number;
      apiKey: string;
    }[];
    return list.find((s) => s.apiKey === key)!.id;
  };
  const pendingChecks = async () => (await store().jobs.countByState('domain-check')).pending;
  const waitFor = async (read: () => Promise<boolean>) => {
    for (let i = 0; i < 400; i++) {
      if (await read()) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('condition not reached');
  };

  it('gives a domain without a scheduled check (added before the schedule existed) one when verified', async () => {
    const subId = await subAccountIdOf(sub);
    const name = `legacy${++counter}-${kind}.test`;
    const created = await store().domains.create({
      subAccountId: subId,
      name,
      dkimSelector: 'mp1',
      dkimPublicKey: 'AAAA',
      dkimPrivateKeySealed: 'sealed',
      returnPathHost: `mp-bounces.${name}`,
      returnPathTarget: config.returnPathTarget,
      trackHost: `mp-track.${name}`,
      trackTarget: config.trackingTarget,
      created: BigInt(start) * 1_000_000n,
    });
    if (!created.ok) throw new Error('not created');
    expect(await pendingChecks()).toBe(0);
    expect((await api.call('POST', `/subaccount/domain/${created.value.id}/verify`, { sub })).status).toBe(200);
    expect(await pendingChecks()).toBe(1);
    expect((await api.call('POST', `/subaccount/domain/${created.value.id}/verify`, { sub })).status).toBe(200);
    expect(await pendingChecks()).toBe(1);
  });

  it('verifies a domain whose records appear later, re-checks it daily and unverifies it when DKIM goes', async () => {
    const name = `later${++counter}-${kind}.test`;
    const created = (await api.call('POST', '/subaccount/domain', { sub, body: { name } })).body;
    // The first check is a durable job, due a minute after creation: a restart loses nothing.
    const job = await store().jobs.enqueue([
      { kind: 'domain-check', payload: {}, runAt: 0, dedupeKey: `domain-${created.id}` },
    ]);
    expect(job[0]).toMatchObject({ created: false });
    expect(await store().jobs.get(job[0]!.id ?? -1)).toMatchObject({
      state: 'pending',
      runAt: start + 60_000,
      payload: { domainId: created.id },
    });
    api.mailplane.start();
    const get = async () => (await api.call('GET', `/subaccount/domain/${created.id}`, { sub })).body;

    // Nothing is published yet: the check one minute after creation says what is missing.
    advance(60_000);
    await waitFor(async () => (await get()).dkimFailureReason !== '');
    expect(await get()).toMatchObject({
      verified: false,
      dkimFailureReason: `DKIM TXT record at mp1._domainkey.${name} not found`,
    });

    // The customer publishes; the next scheduled check (2 minutes after creation) verifies.
    publish(created);
    advance(60_000);
    await waitFor(async () => (await get()).verified === true);
    expect(await get()).toMatchObject({ ...VERIFIED, dnsProvider: 'Cloudflare' });
    // The check writes its verdict, then its job settles back to pending for the next check: on a
    // loaded machine the verdict can be read while the job still runs.
    await waitFor(async () => (await pendingChecks()) === 1);
    expect(await pendingChecks()).toBe(1);

    // The DKIM record is removed; the daily re-check finds out and says why.
    dns.remove(created.dkim.host);
    advance(12 * 3_600_000);
    advance(12 * 3_600_000);
    await waitFor(async () => (await get()).verified === false);
    expect(await get()).toMatchObject({
      dkimVerified: false,
      dkimFailureReason: `DKIM TXT record at mp1._domainkey.${name} not found`,
    });
    await waitFor(async () => (await pendingChecks()) === 1);
    expect(await pendingChecks()).toBe(1);

    // A deleted domain's job ends quietly.
    await api.call('DELETE', `/subaccount/domain/${created.id}`, { sub });
    advance(10 * 60_000);
    // The job is gone once its last run finished (pending alone is 0 while it runs).
    const noChecksLeft = async () =>
      Object.values(await store().jobs.countByState('domain-check')).every((n) => n === 0);
    await waitFor(noChecksLeft);
    expect(await store().jobs.countByState('domain-check')).toEqual({ pending: 0, running: 0, dead: 0 });
  });
});

describe('nextDomainCheckAt', () => {
  const created = Date.UTC(2026, 0, 1);
  const domain = (verified: boolean) => ({ verified, created: BigInt(created) * 1_000_000n }) as DomainRecord;
  const MIN = 60_000;

  it('checks an unverified domain often at first, backing off over 48 hours, then daily', () => {
    const times: number[] = [];
    for (let now = created; now < created + 50 * 60 * MIN; now = times[times.length - 1]!)
      times.push(nextDomainCheckAt(domain(false), now));
    const offsets = times.map((t) => (t - created) / MIN);
    expect(offsets.slice(0, 8)).toEqual([1, 2, 5, 10, 15, 30, 45, 60]);
    expect(offsets).toContain(12 * 60);
    expect(offsets).toContain(48 * 60);
    expect(offsets[offsets.length - 1]).toBe(48 * 60 + 24 * 60);
    expect(offsets.filter((o) => o <= 48 * 60)).toHaveLength(31);
  });

  it('re-checks a verified domain daily, and a domain that just lost verification after 5 minutes', () => {
    const now = created + 3 * 24 * 60 * MIN;
    expect(nextDomainCheckAt(domain(true), now)).toBe(now + 24 * 60 * MIN);
    expect(nextDomainCheckAt(domain(false), now, true)).toBe(now + 5 * MIN);
    expect(nextDomainCheckAt(domain(false), created + 10 * MIN, true)).toBe(created + 10 * MIN + 5 * MIN);
  });
});
