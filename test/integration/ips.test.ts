import { beforeEach, describe, expect, it } from 'vitest';
import { useTestApi } from '../support/api.js';
import { expectAuthBattery, expectError } from '../support/bad-input.js';
import { storeKinds } from '../support/databases.js';
import { schemaErrors } from '../support/openapi.js';

/**
 * The reference's IP schema requires `publicIP`; the spec spells it `publicIp` in responses (and
 * `reverseDnsHostname`). Validate everything else against the schema with the spelling swapped.
 */
function ipSchemaErrors(ip: Record<string, unknown>): string[] {
  expect(typeof ip.publicIp).toBe('string');
  expect(ip).not.toHaveProperty('publicIP');
  return schemaErrors('IP', { ...ip, publicIP: ip.publicIp });
}

describe.each(storeKinds)('IPs API on %s', (kind) => {
  const api = useTestApi(kind);
  let key: string;
  beforeEach(() => {
    key = api.accountKey;
  });

  const allocate = (ips: unknown, extra: Record<string, unknown> = {}) =>
    api.call('PUT', '/account/ip/allocate', { account: key, body: { ips, ...extra } });
  const list = async () =>
    (await api.call('GET', '/account/ip', { account: key, query: { limit: 100 } })).body as Array<{ publicIp: string }>;

  it('allocates, reads, lists, updates and deletes IPs, each response matching the reference schema', async () => {
    const allocated = await allocate(['127.0.0.2', '2001:DB8:0:0:0:0:0:1'], { overflowPool: false });
    expect(allocated.status).toBe(200);
    expect(ipSchemaErrors(allocated.body)).toEqual([]);
    expect(allocated.body).toMatchObject({
      publicIp: '127.0.0.2',
      type: 1,
      state: 0,
      autoWarmupEnabled: false,
      reverseDnsHostname: '',
    });
    expect(allocated.body.allocated.map((ip: { publicIp: string }) => ip.publicIp)).toEqual([
      '127.0.0.2',
      '2001:db8::1',
    ]);
    expect(allocated.text).toMatch(/"created":\d{19}/);

    const id = allocated.body.allocated[1].id;
    const got = await api.call('GET', `/account/ip/${id}/`, { account: key });
    expect(got.status).toBe(200);
    expect(ipSchemaErrors(got.body)).toEqual([]);
    expect(got.body.publicIp).toBe('2001:db8::1');

    const listed = await api.call('GET', '/account/ip/', { account: key });
    expect(listed.status).toBe(200);
    expect(listed.body).toHaveLength(2);
    for (const ip of listed.body) expect(ipSchemaErrors(ip)).toEqual([]);

    const updated = await api.call('PUT', `/account/ip/${id}`, {
      account: key,
      body: { autoWarmupEnabled: true, reverseDnsHostname: 'MTA1.Example.com' },
    });
    expect(updated.status).toBe(200);
    expect(ipSchemaErrors(updated.body)).toEqual([]);
    expect(updated.body).toMatchObject({ autoWarmupEnabled: true, state: 2, reverseDnsHostname: 'mta1.example.com' });

    const deleted = await api.call('DELETE', `/account/ip/${id}`, { account: key });
    expect(deleted.status).toBe(200);
    expect(schemaErrors('IPDeletionResponse', deleted.body)).toEqual([]);
    expect(deleted.body).toEqual({ id, message: 'IP (2001:db8::1) has been deleted successfully' });
    expectError(await api.call('GET', `/account/ip/${id}`, { account: key }), 406, 'IP_NOT_FOUND');
    expect((await list()).map((ip) => ip.publicIp)).toEqual(['127.0.0.2']);
  });

  it('normalises addresses so one address has one spelling, and refuses one already allocated with 403', async () => {
    expect((await allocate(['::ffff:127.0.0.3'])).body.publicIp).toBe('127.0.0.3');
    expectError(await allocate(['127.0.0.3']), 403, 'IP_ALREADY_ALLOCATED');
    expect((await allocate(['2001:db8::a'])).status).toBe(200);
    expectError(await allocate(['2001:0DB8:0000::000A']), 403, 'IP_ALREADY_ALLOCATED');
    // all or nothing: the new address of a refused request is not stored
    expectError(await allocate(['127.0.0.9', '127.0.0.3']), 403, 'IP_ALREADY_ALLOCATED');
    expect((await list()).map((ip) => ip.publicIp)).toEqual(['127.0.0.3', '2001:db8::a']);
  });

  it('refuses an address another account holds with 403, also when both ask at once, until it is released', async () => {
    const other = await api.mailplane.createAccount({ name: 'other' });
    const allocateAs = (apiKey: string, ips: string[]) =>
      api.call('PUT', '/account/ip/allocate', { account: apiKey, body: { ips } });
    const listOf = async (apiKey: string) =>
      ((await api.call('GET', '/account/ip', { account: apiKey })).body as Array<{ publicIp: string }>).map(
        (ip) => ip.publicIp,
      );
    const mine = await allocate(['127.0.0.2']);
    expect(mine.status).toBe(200);
    const theirs = await allocateAs(other.apiKey, ['127.0.0.4', '::ffff:127.0.0.2']);
    expectError(theirs, 403, 'IP_ALREADY_ALLOCATED');
    expect(theirs.body.message).toBe('already allocated: 127.0.0.2');
    expect(await listOf(other.apiKey)).toEqual([]);
    // two accounts racing for one address: one wins, the other gets the same 403
    const race = await Promise.all([allocateAs(key, ['10.9.8.7']), allocateAs(other.apiKey, ['10.9.8.7'])]);
    expect(race.map((r) => r.status).sort()).toEqual([200, 403]);
    expectError(
      race.find((r) => r.status === 403)!,
      403,
      'IP_ALREADY_ALLOCATED',
    );
    expect([...(await listOf(key)), ...(await listOf(other.apiKey))].filter((ip) => ip === '10.9.8.7')).toHaveLength(1);
    // released by its account, the address can be allocated by the other
    expect((await api.call('DELETE', `/account/ip/${mine.body.id}`, { account: key })).status).toBe(200);
    expect((await allocateAs(other.apiKey, ['127.0.0.2'])).status).toBe(200);
    expect(await list()).not.toContainEqual(expect.objectContaining({ publicIp: '127.0.0.2' }));
  });

  it('pauses, resumes and switches warmup with the documented state transitions', async () => {
    const { body } = await allocate(['127.0.0.5'], { autoWarmupEnabled: true, type: 0 });
    expect(body).toMatchObject({ state: 2, type: 0, autoWarmupEnabled: true });
    const put = async (update: Record<string, unknown>) =>
      (await api.call('PUT', `/account/ip/${body.id}`, { account: key, body: update })).body;
    expect(await put({ state: 1 })).toMatchObject({ state: 1, autoWarmupEnabled: true });
    expect(await put({ state: 0 })).toMatchObject({ state: 2 });
    expect(await put({ autoWarmupEnabled: false })).toMatchObject({ state: 0, autoWarmupEnabled: false });
    expect(await put({ state: 1, autoWarmupEnabled: true })).toMatchObject({ state: 1, autoWarmupEnabled: true });
    expect(await put({ state: 0 })).toMatchObject({ state: 2 });
  });

  it('pages and searches by address', async () => {
    await allocate(['127.0.0.2', '127.0.0.3', '10.1.2.3', '2001:db8::1']);
    const page = await api.call('GET', '/account/ip', { account: key, query: { limit: 2, offset: 1 } });
    expect(page.body.map((ip: { publicIp: string }) => ip.publicIp)).toEqual(['127.0.0.3', '10.1.2.3']);
    const found = await api.call('GET', '/account/ip', { account: key, query: { search: '127.0' } });
    expect(found.body.map((ip: { publicIp: string }) => ip.publicIp)).toEqual(['127.0.0.2', '127.0.0.3']);
    const v6 = await api.call('GET', '/account/ip', { account: key, query: { search: 'DB8' } });
    expect(v6.body.map((ip: { publicIp: string }) => ip.publicIp)).toEqual(['2001:db8::1']);
  });

  it('refuses to delete an IP that belongs to a pool with 403', async () => {
    const { body } = await allocate(['127.0.0.6']);
    const pool = await api.call('POST', '/account/ippool', {
      account: key,
      body: { name: 'P', ips: [{ publicIP: '127.0.0.6' }] },
    });
    expect(pool.status).toBe(200);
    expectError(await api.call('DELETE', `/account/ip/${body.id}`, { account: key }), 403, 'IP_IN_POOL');
    expect((await api.call('GET', `/account/ip/${body.id}`, { account: key })).status).toBe(200);
  });

  describe('bad input', () => {
    it('answers 401 to no key, a wrong key and a sub-account key on every endpoint', async () => {
      const sub = (await api.call('POST', '/account/subaccount', { account: key, body: { name: 'x' } })).body.apiKey;
      const { body } = await allocate(['127.0.0.2']);
      for (const [method, path, reqBody] of [
        ['GET', '/account/ip', undefined],
        ['PUT', '/account/ip/allocate', { ips: ['127.0.0.7'] }],
        ['GET', `/account/ip/${body.id}`, undefined],
        ['PUT', `/account/ip/${body.id}`, { state: 1 }],
        ['DELETE', `/account/ip/${body.id}`, undefined],
      ] as const) {
        await expectAuthBattery(api, method, path, 'account', sub, { body: reqBody });
      }
      const after = await list();
      expect(after).toEqual([expect.objectContaining({ publicIp: '127.0.0.2', state: 0 })]);
    });

    it('answers 422 to malformed bodies and addresses, storing nothing', async () => {
      const cases: Array<[string, { body?: unknown; raw?: string }]> = [
        ['malformed JSON', { raw: '{"ips":' }],
        ['no body', { raw: '' }],
        ['ips missing', { body: { overflowPool: true } }],
        ['ips a string', { body: { ips: '127.0.0.2' } }],
        ['ips empty', { body: { ips: [] } }],
        ['ips of numbers', { body: { ips: [127] } }],
        ['not an address', { body: { ips: ['example.com'] } }],
        ['leading zeros', { body: { ips: ['127.000.0.2'] } }],
        ['with a prefix length', { body: { ips: ['2001:db8::/64'] } }],
        ['with a zone id', { body: { ips: ['fe80::1%eth0'] } }],
        ['unspecified', { body: { ips: ['0.0.0.0'] } }],
        ['multicast', { body: { ips: ['ff02::1'] } }],
        ['whitespace', { body: { ips: [' 127.0.0.2'] } }],
        ['twice in one request', { body: { ips: ['127.0.0.2', '::ffff:7f00:2'] } }],
        ['over-long', { body: { ips: ['1'.repeat(101)] } }],
        ['10,000 addresses', { body: { ips: Array.from({ length: 10_000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`) } }],
        ['extra field', { body: { ips: ['127.0.0.2'], admin: true } }],
        ['type out of range', { body: { ips: ['127.0.0.2'], type: 2 } }],
        ['overflowPool a string', { body: { ips: ['127.0.0.2'], overflowPool: 'yes' } }],
      ];
      for (const [label, options] of cases) {
        const result = await api.call('PUT', '/account/ip/allocate', { account: key, ...options });
        expect(result.status, label).toBe(422);
        expectError(result, 422);
      }
      expect(await list()).toEqual([]);
    });

    it('answers 422 to a bad update body and changes nothing', async () => {
      const { body } = await allocate(['127.0.0.2']);
      for (const update of [
        {},
        { state: 2 },
        { state: '1' },
        { autoWarmupEnabled: 'yes' },
        { reverseDnsHostname: 'not a host' },
        { reverseDnsHostname: 'x'.repeat(254) },
        { publicIp: '127.0.0.3' },
        { type: 0 },
      ]) {
        expectError(await api.call('PUT', `/account/ip/${body.id}`, { account: key, body: update }), 422);
      }
      const after = await api.call('GET', `/account/ip/${body.id}`, { account: key });
      expect(after.body).toMatchObject({
        publicIp: '127.0.0.2',
        state: 0,
        autoWarmupEnabled: false,
        reverseDnsHostname: '',
        type: 1,
      });
    });

    it('answers 422 to bad paging parameters', async () => {
      for (const query of [{ limit: 0 }, { limit: -1 }, { offset: -1 }, { limit: 'ten' }, { offset: '1e3' }]) {
        expectError(await api.call('GET', '/account/ip', { account: key, query: query as never }), 422);
      }
    });

    it('answers 406 to non-numeric, unknown and another account’s ids, and changes nothing', async () => {
      const other = await api.mailplane.createAccount({ name: 'other' });
      const theirs = await api.call('PUT', '/account/ip/allocate', {
        account: other.apiKey,
        body: { ips: ['127.0.0.8'] },
      });
      for (const id of ['abc', '0', '-1', '1.5', '99999', '1e3', String(theirs.body.id)]) {
        expectError(await api.call('GET', `/account/ip/${id}`, { account: key }), 406);
        expectError(await api.call('PUT', `/account/ip/${id}`, { account: key, body: { state: 1 } }), 406);
        expectError(await api.call('DELETE', `/account/ip/${id}`, { account: key }), 406);
      }
      const still = await api.call('GET', `/account/ip/${theirs.body.id}`, { account: other.apiKey });
      expect(still.body).toMatchObject({ publicIp: '127.0.0.8', state: 0 });
    });
  });
});
