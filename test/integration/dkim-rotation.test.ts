/**
 * DKIM key rotation end to end: a new key under a new selector, listed beside the signing key;
 * signing switches only once the new record verifies in (real, test) DNS; the old record stays
 * listed for the grace period and is then retired; the rotation job advances it without a press
 * of "verify"; a pending rotation abandoned; refusals; automatic rotation.
 */
import { createPublicKey } from 'node:crypto';
import { contextOf } from '../../src/instance-context.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestApi, TEST_DOMAINS, type TestApi } from '../support/api.js';
import { expectError } from '../support/bad-input.js';
import { storeKinds } from '../support/databases.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { schemaErrors } from '../support/openapi.js';
import { manualClock } from 'mailplane';

const DAY = 86_400_000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the Domain resource as a client reads it
type Domain = any;

/** The `s=` of the message's DKIM-Signature. */
const signedSelector = (raw: Buffer) =>
  /\bs=([^;\s]+)/.exec(/^DKIM-Signature:[^]*?(?=\r\n\S)/m.exec(raw.toString('latin1'))?.[0] ?? '')?.[1];

describe.each(storeKinds)('DKIM key rotation on %s', (kind) => {
  let env: DeliveryEnv;
  const domainPath = () => `/subaccount/domain/${env.sender.domain.id}`;
  const rotate = (id: unknown = env.sender.domain.id, sub = env.key) =>
    env.api.call('POST', `/subaccount/domain/${id}/dkim/rotate`, { sub });
  const cancel = (id: unknown = env.sender.domain.id, sub = env.key) =>
    env.api.call('DELETE', `/subaccount/domain/${id}/dkim/rotate`, { sub });
  const read = async (): Promise<Domain> => (await env.api.call('GET', domainPath(), { sub: env.key })).body;
  const deliverOne = async (to: string) => {
    const [entry] = await env.send([to]);
    await env.waitForStatus(entry!.messageId, 'delivered');
    const got = env.sink.received.find((m) => m.rcptTo.includes(to))!;
    return { selector: signedSelector(got.raw), dkim: await env.verifyDkim(got.raw) };
  };

  beforeEach(async () => {
    env = await startDeliveryEnv(kind);
  });
  afterEach(() => env.close());

  it('lists the new key as pending, keeps signing with the old one until its record verifies, then retires the old one after the grace period', async () => {
    const rotated = await rotate();
    expect(rotated.status).toBe(200);
    expect(schemaErrors('Domain', rotated.body)).toEqual([]);
    const [active, pending] = rotated.body.dkimRecords;
    expect(rotated.body.dkimRecords).toHaveLength(2);
    expect(active).toMatchObject({
      state: 'active',
      selector: 'mp1',
      host: 'mp1._domainkey.sender.test',
      verified: true,
    });
    expect(rotated.body.dkim).toEqual({ host: active.host, type: 'TXT', textValue: active.textValue });
    expect(pending).toMatchObject({ state: 'pending', type: 'TXT', verified: false });
    expect(pending.selector).toMatch(/^mp1-\d{14}$/);
    expect(pending.host).toBe(`${pending.selector}._domainkey.sender.test`);
    const spki = Buffer.from(/p=(\S+)$/.exec(pending.textValue)![1]!, 'base64');
    // A key of the size configured (the test instances' TEST_DOMAINS; the library's default is 2048).
    expect(createPublicKey({ key: spki, format: 'der', type: 'spki' }).asymmetricKeyDetails?.modulusLength).toBe(
      TEST_DOMAINS.dkimKeyBits,
    );

    // Not published yet: a check records why, and mail is still signed with the old key.
    const unpublished = (await env.api.call('POST', `${domainPath()}/verify`, { sub: env.key })).body;
    expect(unpublished.dkimRecords[1]).toMatchObject({ state: 'pending', verified: false });
    expect(unpublished.dkimRecords[1].failureReason).not.toBe('');
    expect(unpublished.verified).toBe(true);
    expect(await deliverOne(`before@${RCPT_DOMAIN}`)).toEqual({
      selector: 'mp1',
      dkim: expect.objectContaining({ status: 'pass' }),
    });

    // Published: the next check makes it the signing key, and the old record is kept listed.
    env.dns.txt(pending.host, pending.textValue);
    const switched = (await env.api.call('POST', `${domainPath()}/verify`, { sub: env.key })).body;
    expect(switched.dkim).toEqual({ host: pending.host, type: 'TXT', textValue: pending.textValue });
    const record = (r: Domain) => ({ host: r.host, type: 'TXT', textValue: r.textValue, selector: r.selector });
    expect(switched.dkimRecords).toEqual([
      { ...record(pending), state: 'active', verified: true },
      { ...record(active), state: 'retiring', verified: true, retireAt: expect.any(Number) },
    ]);
    const retireAtMs = Number(
      BigInt((await env.api.call('GET', domainPath(), { sub: env.key })).text.match(/"retireAt":(\d+)/)![1]!) /
        1_000_000n,
    );
    expect(retireAtMs).toBe(env.clock.now() + 7 * DAY);
    expect(await deliverOne(`after@${RCPT_DOMAIN}`)).toEqual({
      selector: pending.selector,
      dkim: expect.objectContaining({ status: 'pass' }),
    });

    // The rotation's job drops the old record once the grace period is over.
    env.advance(7 * DAY + 1000);
    await vi.waitFor(
      async () => expect((await read()).dkimRecords.map((r: { state: string }) => r.state)).toEqual(['active']),
      { timeout: 15_000, interval: 50 },
    );
    expect((await read()).dkim.host).toBe(pending.host);
    // A second rotation can start now, under yet another selector.
    env.advance(1000);
    const again = await rotate();
    expect(again.status).toBe(200);
    expect(again.body.dkimRecords[1].selector).not.toBe(pending.selector);
  });

  it('switches signing from its own job once the record is published, without a press of verify', async () => {
    const pending = (await rotate()).body.dkimRecords[1];
    env.dns.txt(pending.host, pending.textValue);
    // The job checks the new record on the propagation schedule: the first check a minute after the rotation.
    env.advance(61_000);
    await vi.waitFor(async () => expect((await read()).dkim.host).toBe(pending.host), {
      timeout: 15_000,
      interval: 50,
    });
    expect(await deliverOne(`job@${RCPT_DOMAIN}`)).toMatchObject({
      selector: pending.selector,
      dkim: { status: 'pass' },
    });
  });

  it('abandons a pending rotation: the key is dropped, the old one goes on signing, and a new rotation can start', async () => {
    const pending = (await rotate()).body.dkimRecords[1];
    const cancelled = await cancel();
    expect(cancelled.status).toBe(200);
    expect(schemaErrors('Domain', cancelled.body)).toEqual([]);
    expect(cancelled.body.dkimRecords.map((r: { state: string; selector: string }) => [r.state, r.selector])).toEqual([
      ['active', 'mp1'],
    ]);
    expect((await read()).dkimRecords).toEqual(cancelled.body.dkimRecords);
    // Publishing the abandoned record now changes nothing: mail is signed with the old key.
    env.dns.txt(pending.host, pending.textValue);
    env.advance(61_000);
    expect((await env.api.call('POST', `${domainPath()}/verify`, { sub: env.key })).body.dkim.host).toBe(
      'mp1._domainkey.sender.test',
    );
    expect(await deliverOne(`kept@${RCPT_DOMAIN}`)).toEqual({
      selector: 'mp1',
      dkim: expect.objectContaining({ status: 'pass' }),
    });
    // Nothing left to abandon; a new rotation starts under a new selector.
    expectError(await cancel(), 403, 'DKIM_ROTATION_NOT_PENDING');
    env.advance(1000);
    const again = await rotate();
    expect(again.status).toBe(200);
    expect(again.body.dkimRecords[1].selector).not.toBe(pending.selector);
  });

  it('has nothing to abandon once the pending key signs, and refuses unknown and foreign ids (406)', async () => {
    const pending = (await rotate()).body.dkimRecords[1];
    env.dns.txt(pending.host, pending.textValue);
    await env.api.call('POST', `${domainPath()}/verify`, { sub: env.key });
    expectError(await cancel(), 403, 'DKIM_ROTATION_NOT_PENDING');
    expect((await read()).dkim.host).toBe(pending.host);
    expectError(await cancel(999_999), 406, 'DOMAIN_NOT_FOUND');
    const other = await env.api.call('POST', '/account/subaccount', {
      account: env.api.accountKey,
      body: { name: 'other' },
    });
    expectError(await cancel(env.sender.domain.id, other.body.apiKey), 406, 'DOMAIN_NOT_FOUND');
    expectError(await env.api.call('DELETE', `${domainPath()}/dkim/rotate`, {}), 401);
  });

  it('refuses a second rotation while one is pending (403), unknown and foreign ids (406), and changes nothing', async () => {
    const first = await rotate();
    expectError(await rotate(), 403, 'DKIM_ROTATION_PENDING');
    expectError(await rotate(999_999), 406, 'DOMAIN_NOT_FOUND');
    expectError(await rotate('abc'), 406);
    const other = await env.api.call('POST', '/account/subaccount', {
      account: env.api.accountKey,
      body: { name: 'other' },
    });
    expectError(await rotate(env.sender.domain.id, other.body.apiKey), 406, 'DOMAIN_NOT_FOUND');
    expectError(await env.api.call('POST', `${domainPath()}/dkim/rotate`, {}), 401);
    expect((await read()).dkimRecords).toEqual(first.body.dkimRecords);
  });
});

describe.each(storeKinds)('automatic DKIM rotation on %s', (kind) => {
  let api: TestApi;
  let dns: TestDnsServer;
  const clock = manualClock(Date.UTC(2026, 5, 1));

  beforeEach(async () => {
    dns = await startTestDnsServer();
  });
  afterEach(async () => {
    await api.close();
    await dns.close();
  });

  const setUp = async (autoRotateDays: number) => {
    api = await createTestApi(kind, {
      clock,
      dns: { servers: [{ host: dns.host, port: dns.port }], timeoutMs: 300, retries: 0 },
      domains: { dkimAutoRotateDays: autoRotateDays },
      jobs: { pollIntervalMs: 20 },
    });
    const sub = (await api.call('POST', '/account/subaccount', { account: api.accountKey, body: { name: 'auto' } }))
      .body.apiKey;
    const domain = (await api.call('POST', '/subaccount/domain', { sub, body: { name: `auto-${kind}.test` } })).body;
    dns.txt(domain.dkim.host, domain.dkim.textValue);
    expect((await api.call('POST', `/subaccount/domain/${domain.id}/verify`, { sub })).body.verified).toBe(true);
    api.mailplane.start();
    return async (): Promise<Domain> => (await api.call('GET', `/subaccount/domain/${domain.id}`, { sub })).body;
  };

  it('rotates a verified domain’s key once it has signed for the configured days', async () => {
    const read = await setUp(30);
    clock.advance(20 * DAY);
    contextOf(api.mailplane).jobs.notify();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await read()).dkimRecords).toHaveLength(1);
    clock.advance(11 * DAY);
    contextOf(api.mailplane).jobs.notify();
    await vi.waitFor(
      async () =>
        expect((await read()).dkimRecords.map((r: { state: string }) => r.state)).toEqual(['active', 'pending']),
      { timeout: 15_000, interval: 50 },
    );
  });

  it('never rotates by itself when the option is off (the default)', async () => {
    const read = await setUp(0);
    clock.advance(400 * DAY);
    contextOf(api.mailplane).jobs.notify();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await read()).dkimRecords).toHaveLength(1);
  });
});
