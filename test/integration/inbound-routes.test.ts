import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApi, useTestApi } from '../support/api.js';
import { expectError } from '../support/bad-input.js';
import { storeKinds } from '../support/databases.js';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { createSender, type Sender } from '../support/sending.js';

const MX_HOST = 'mx.mailplane.test';
let dns: TestDnsServer;
let counter = 0;

beforeAll(async () => {
  dns = await startTestDnsServer();
});
afterAll(async () => {
  await dns?.close();
});

/** A domain name no other test of the file publishes records for. */
const freshName = () => `acme-${++counter}.test`;

describe.each(storeKinds)('receiving and /subaccount/route on %s', (kind) => {
  // A function: the DNS server starts in the file's beforeAll, after this line runs.
  const api = useTestApi(kind, () => ({
    dns: { servers: [{ host: dns.host, port: dns.port }], timeoutMs: 300, retries: 1 },
    inbound: { hostname: MX_HOST },
  }));

  /** A sub-account with a verified domain that receives mail. */
  async function receiver(name = freshName()): Promise<Sender> {
    const sender = await createSender(api, `sub-${name}`, name);
    const enabled = await api.call('POST', `/subaccount/domain/${sender.domain.id}/inbound`, {
      sub: sender.subAccount.apiKey,
    });
    expect(enabled.status, enabled.text).toBe(200);
    return sender;
  }

  it('enables receiving with the MX record to publish, checks it against DNS, and disables it', async () => {
    const name = freshName();
    const { subAccount, domain } = await createSender(api, 'in', name);
    const path = `/subaccount/domain/${domain.id}`;
    const sub = subAccount.apiKey;
    expect((await api.call('GET', path, { sub })).body.inbound).toEqual({ enabled: false });

    const enabled = await api.call('POST', `${path}/inbound`, { sub });
    expect(enabled.status).toBe(200);
    expect(enabled.body.inbound).toMatchObject({
      enabled: true,
      mxRecord: { type: 'MX', host: name, value: MX_HOST, priority: 10 },
      mxVerified: false,
    });
    expect(enabled.body.inbound.mxFailureReason).toContain(`MX record at ${name} not found`);
    expect(enabled.body.inbound.mxFailureReason).toContain(`publish ${name} MX 10 ${MX_HOST}`);

    // The customer publishes the record; the domain's check (the schedule's, or "verify") finds it.
    dns.set(name, 'MX', [{ exchange: MX_HOST, preference: 10 }]);
    const verified = await api.call('POST', `${path}/verify`, { sub });
    expect(verified.body.inbound).toMatchObject({ enabled: true, mxVerified: true, mxFailureReason: '' });
    const listed = await api.call('GET', '/subaccount/domain', { sub });
    expect(listed.body[0].inbound).toEqual(verified.body.inbound);

    dns.set(name, 'MX', [{ exchange: 'mail.elsewhere.test', preference: 5 }]);
    const moved = await api.call('POST', `${path}/verify`, { sub });
    expect(moved.body.inbound.mxVerified).toBe(false);
    expect(moved.body.inbound.mxFailureReason).toContain(`points to mail.elsewhere.test, expected ${MX_HOST}`);

    const disabled = await api.call('DELETE', `${path}/inbound`, { sub });
    expect(disabled.status).toBe(200);
    expect(disabled.body.inbound).toEqual({ enabled: false });
    expect((await api.call('GET', path, { sub })).body.inbound).toEqual({ enabled: false });
  });

  it('refuses receiving on an unverified, unknown or foreign domain, and on a name another sub-account receives', async () => {
    const unverified = await createSender(api, 'unverified', freshName(), false);
    const sub = unverified.subAccount.apiKey;
    const refused = await api.call('POST', `/subaccount/domain/${unverified.domain.id}/inbound`, { sub });
    expectError(refused, 422, 'DOMAIN_NOT_VERIFIED');
    expectError(await api.call('POST', '/subaccount/domain/999999/inbound', { sub }), 406, 'DOMAIN_NOT_FOUND');
    const other = await receiver();
    const foreign = `/subaccount/domain/${other.domain.id}/inbound`;
    expectError(await api.call('POST', foreign, { sub }), 406, 'DOMAIN_NOT_FOUND');
    expectError(await api.call('DELETE', foreign, { sub }), 406, 'DOMAIN_NOT_FOUND');
    const twin = await createSender(api, 'twin', other.domain.name);
    const taken = await api.call('POST', `/subaccount/domain/${twin.domain.id}/inbound`, {
      sub: twin.subAccount.apiKey,
    });
    expectError(taken, 403, 'INBOUND_DOMAIN_TAKEN');
  });

  it('creates, reads, lists, searches, counts, updates and deletes routes; the secret is shown once', async () => {
    const { subAccount, domain } = await receiver();
    const sub = subAccount.apiKey;
    const made = await api.call('POST', '/subaccount/route', {
      sub,
      body: { pattern: `Support@${domain.name.toUpperCase()}`, action: 'webhook', url: 'https://hooks.example.com/in' },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({
      pattern: `support@${domain.name}`,
      kind: 'exact',
      action: 'webhook',
      url: 'https://hooks.example.com/in',
      forwardTo: null,
    });
    expect(made.body.secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    const { secret: _secret, ...wire } = made.body;
    const read = await api.call('GET', `/subaccount/route/${made.body.id}`, { sub });
    expect(read.body).toEqual(wire);

    const bodies = [
      { pattern: `reply+*@${domain.name}`, action: 'store' },
      { pattern: `*@${domain.name}`, action: 'store' },
      { pattern: `noreply@${domain.name}`, action: 'refuse' },
    ];
    for (const body of bodies) {
      const created = await api.call('POST', '/subaccount/route', { sub, body });
      expect(created.status, created.text).toBe(201);
      expect(created.body.secret).toBeUndefined();
    }
    const all = await api.call('GET', '/subaccount/route', { sub });
    expect(all.body.map((r: { kind: string }) => r.kind)).toEqual(['exact', 'prefix', 'catchAll', 'exact']);
    const page = await api.call('GET', '/subaccount/route', { sub, query: { limit: 2, offset: 1 } });
    expect(page.body.map((r: { pattern: string }) => r.pattern)).toEqual([
      `reply+*@${domain.name}`,
      `*@${domain.name}`,
    ]);
    const search = await api.call('GET', '/subaccount/route', { sub, query: { search: 'REPLY+' } });
    expect(search.body.map((r: { pattern: string }) => r.pattern)).toEqual([`reply+*@${domain.name}`]);
    expect((await api.call('GET', '/subaccount/route/count', { sub })).body).toEqual({ count: 4 });
    expect((await api.call('GET', '/subaccount/route/count', { sub, query: { search: 'reply+' } })).body).toEqual({
      count: 1,
    });

    // Moving to `store` drops the URL; moving back to `webhook` makes a new secret, shown in that answer.
    const stored = await api.call('PUT', `/subaccount/route/${made.body.id}`, { sub, body: { action: 'store' } });
    expect(stored.body).toMatchObject({ action: 'store', url: null });
    expect(stored.body.secret).toBeUndefined();
    const hooked = await api.call('PUT', `/subaccount/route/${made.body.id}`, {
      sub,
      body: { action: 'webhook', url: 'https://hooks.example.com/again' },
    });
    expect(hooked.body.secret).toMatch(/^whsec_/);
    const renamed = await api.call('PUT', `/subaccount/route/${made.body.id}`, {
      sub,
      body: { pattern: `help@${domain.name}` },
    });
    expect(renamed.body).toMatchObject({ pattern: `help@${domain.name}`, url: 'https://hooks.example.com/again' });
    expect(renamed.body.secret).toBeUndefined();

    const deleted = await api.call('DELETE', `/subaccount/route/${made.body.id}`, { sub });
    expect(deleted.body).toEqual({
      id: made.body.id,
      message: `Route (help@${domain.name}) has been deleted successfully.`,
    });
    expectError(await api.call('GET', `/subaccount/route/${made.body.id}`, { sub }), 406, 'ROUTE_NOT_FOUND');
  });

  it('answers each bad route with its own code and stores nothing', async () => {
    const { subAccount, domain } = await receiver();
    const sub = subAccount.apiKey;
    const other = await receiver();
    await api.call('POST', '/subaccount/suppression', { sub, body: { manual: [{ email: 'gone@elsewhere.example' }] } });
    const create = (body: Record<string, unknown>) => api.call('POST', '/subaccount/route', { sub, body });
    const at = (local: string) => `${local}@${domain.name}`;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ pattern: '', action: 'store' }, 'ROUTE_PATTERN_INVALID'],
      [{ pattern: `a*b@${domain.name}`, action: 'store' }, 'ROUTE_PATTERN_INVALID'],
      [{ pattern: at('a'), action: 'bounce' }, 'ROUTE_ACTION_UNKNOWN'],
      [{ pattern: at('a'), action: 'webhook' }, 'ROUTE_TARGET_REQUIRED'],
      [{ pattern: at('a'), action: 'store', url: 'https://hooks.example.com/x' }, 'ROUTE_TARGET_REQUIRED'],
      [{ pattern: at('a'), action: 'forward' }, 'ROUTE_TARGET_REQUIRED'],
      [{ pattern: at('a'), action: 'webhook', url: 'http://127.0.0.1:9/x' }, 'ROUTE_URL_REFUSED'],
      [{ pattern: at('a'), action: 'webhook', url: 'ftp://hooks.example.com/x' }, 'ROUTE_URL_REFUSED'],
      [{ pattern: at('a'), action: 'forward', forwardTo: 'not an address' }, 'ROUTE_FORWARD_REFUSED'],
      [{ pattern: at('a'), action: 'forward', forwardTo: 'Gone@elsewhere.example' }, 'ROUTE_FORWARD_REFUSED'],
      [{ pattern: at('a'), action: 'forward', forwardTo: at('b') }, 'ROUTE_FORWARD_LOOP'],
      [
        { pattern: at('a'), action: 'forward', forwardTo: `desk@${other.domain.name.toUpperCase()}` },
        'ROUTE_FORWARD_LOOP',
      ],
      [{ pattern: `a@${other.domain.name}`, action: 'store' }, 'ROUTE_DOMAIN_NOT_RECEIVING'],
      [{ pattern: 'a@unknown.example', action: 'store' }, 'ROUTE_DOMAIN_NOT_RECEIVING'],
    ];
    for (const [body, code] of cases) {
      const answer = await create(body);
      expectError(answer, 422, code);
      expect(answer.body.message.length, code).toBeGreaterThan(10);
    }
    expect((await api.call('GET', '/subaccount/route/count', { sub })).body).toEqual({ count: 0 });

    expect((await create({ pattern: at('a'), action: 'store' })).status).toBe(201);
    const forward = await create({ pattern: at('f'), action: 'forward', forwardTo: 'Desk@elsewhere.example' });
    expect(forward.status).toBe(201);
    expect(forward.body).toMatchObject({ action: 'forward', forwardTo: 'Desk@elsewhere.example', url: null });
    expectError(await create({ pattern: at('A'), action: 'refuse' }), 403, 'ROUTE_PATTERN_EXISTS');
    const second = await create({ pattern: at('b'), action: 'store' });
    const clash = await api.call('PUT', `/subaccount/route/${second.body.id}`, { sub, body: { pattern: at('a') } });
    expectError(clash, 403, 'ROUTE_PATTERN_EXISTS');
    const bad = await api.call('PUT', `/subaccount/route/${second.body.id}`, { sub, body: { action: 'forward' } });
    expectError(bad, 422, 'ROUTE_TARGET_REQUIRED');
    expect((await api.call('GET', `/subaccount/route/${second.body.id}`, { sub })).body.action).toBe('store');
  });

  it("answers another sub-account's route as missing", async () => {
    const mine = await receiver();
    const theirs = await receiver();
    const route = await api.call('POST', '/subaccount/route', {
      sub: theirs.subAccount.apiKey,
      body: { pattern: `*@${theirs.domain.name}`, action: 'store' },
    });
    const sub = mine.subAccount.apiKey;
    const path = `/subaccount/route/${route.body.id}`;
    expectError(await api.call('GET', path, { sub }), 406, 'ROUTE_NOT_FOUND');
    expectError(await api.call('PUT', path, { sub, body: { action: 'refuse' } }), 406, 'ROUTE_NOT_FOUND');
    expectError(await api.call('DELETE', path, { sub }), 406, 'ROUTE_NOT_FOUND');
    expect((await api.call('GET', '/subaccount/route', { sub })).body).toEqual([]);
    const still = await api.call('GET', path, { sub: theirs.subAccount.apiKey });
    expect(still.body.action).toBe('store');
  });
});

describe.each(storeKinds)('receiving without inbound.hostname on %s', (kind) => {
  it('refuses to enable receiving: INBOUND_NOT_CONFIGURED', async () => {
    const api = await createTestApi(kind);
    try {
      const { subAccount, domain } = await createSender(api, 'in', freshName());
      const answer = await api.call('POST', `/subaccount/domain/${domain.id}/inbound`, { sub: subAccount.apiKey });
      expectError(answer, 422, 'INBOUND_NOT_CONFIGURED');
      expect(answer.body.message).toBe('the instance has no inbound.hostname');
      const read = await api.call('GET', `/subaccount/domain/${domain.id}`, { sub: subAccount.apiKey });
      expect(read.body.inbound).toEqual({ enabled: false });
    } finally {
      await api.close();
    }
  });
});
