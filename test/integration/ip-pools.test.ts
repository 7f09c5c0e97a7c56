import { beforeEach, describe, expect, it } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { useTestApi, type CallResult } from '../support/api.js';
import { expectAuthBattery, expectError } from '../support/bad-input.js';
import { storeKinds } from '../support/databases.js';
import { schemaErrors } from '../support/openapi.js';

type Json = Record<string, unknown>;

/**
 * The reference's IP schema (inside IPPool.ips) requires `publicIP`; the spec spells it `publicIp`
 * in responses. Validate the rest of the pool against IPPool with the spelling swapped.
 */
function poolSchemaErrors(pool: Json): string[] {
  const ips = (pool.ips as Json[]).map((ip) => ({ ...ip, publicIP: ip.publicIp }));
  return schemaErrors('IPPool', { ...pool, ips });
}

describe.each(storeKinds)('IP pools API on %s', (kind) => {
  const api = useTestApi(kind);
  let key: string;
  beforeEach(() => {
    key = api.accountKey;
  });

  const createPool = (body: Json, account = key) => api.call('POST', '/account/ippool', { account, body });
  const updatePool = (id: number, body: Json) => api.call('PUT', `/account/ippool/${id}`, { account: key, body });
  const getPool = async (id: number) => (await api.call('GET', `/account/ippool/${id}`, { account: key })).body;
  const pools = async (account = key) =>
    (await api.call('GET', '/account/ippool', { account, query: { limit: 100 } })).body as Array<{
      id: number;
      name: string;
      ips: Json[];
    }>;
  const allocate = async (...ips: string[]) =>
    (await api.call('PUT', '/account/ip/allocate', { account: key, body: { ips } })).body.allocated as Array<{
      id: number;
      publicIp: string;
    }>;
  const tpsp = async (name: string, account = key) =>
    (await api.call('POST', '/account/tpsp', { account, body: { name, type: 1 } })).body as { id: number };
  const ok = (result: CallResult) => {
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    return result.body;
  };

  it('starts with the Shared system pool, which cannot be deleted or renamed', async () => {
    const all = await pools();
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({
      name: 'Shared',
      type: 0,
      routingStrategy: 0,
      routingMetaData: '{}',
      ips: [],
      shouldOverflow: false,
      overflowPoolName: '',
    });
    expect(poolSchemaErrors(all[0]!)).toEqual([]);
    expectError(
      await api.call('DELETE', `/account/ippool/${all[0]!.id}`, { account: key }),
      403,
      'SYSTEM_POOL_UNDELETABLE',
    );
    expectError(await updatePool(all[0]!.id, { name: 'Mine' }), 403, 'SYSTEM_POOL_RENAME');
    expectError(await createPool({ name: 'shared' }), 403, 'IPPOOL_NAME_TAKEN');
    // its members and routing can change
    const [ip] = await allocate('127.0.0.2');
    expect(ok(await updatePool(all[0]!.id, { ips: [{ publicIP: '127.0.0.2' }] })).ips).toEqual([
      expect.objectContaining({ id: ip!.id }),
    ]);
    expect(await pools()).toHaveLength(1);
  });

  it('gives an account created before pools existed its system pool on first use', async () => {
    const { store, secrets } = contextOf(api.mailplane);
    const legacyKey = 'mpak_legacyLegacyLegacyLegacyLegacy01';
    await store.accounts.create({
      name: 'legacy',
      apiKeyHash: secrets.lookupHash(legacyKey),
      apiKeySealed: secrets.encrypt(legacyKey),
      created: 1n,
    });
    const [first, second] = await Promise.all([pools(legacyKey), pools(legacyKey)]);
    expect(first!.map((p) => p.name)).toEqual(['Shared']);
    expect(second!.map((p) => p.name)).toEqual(['Shared']);
    expect((await pools(legacyKey)).map((p) => p.name)).toEqual(['Shared']);
  });

  it('creates, reads, lists, updates and deletes a pool with IPs and TPSPs; deleting leaves the IPs unassigned', async () => {
    const [a, b] = await allocate('127.0.0.2', '2001:db8::2');
    const sg = await tpsp('sendgrid');
    const created = await createPool({
      name: 'Transactional',
      ips: [{ publicIP: '127.0.0.2' }, { publicIP: '2001:DB8::2' }],
      tpsps: [sg.id],
      routingStrategy: 2,
      routingMetaData: JSON.stringify({ [`IP_${a!.id}`]: '3', [`IP_${b!.id}`]: '1', [`TPSP_${sg.id}`]: '0' }),
      warmupInterval: 48,
    });
    const pool = ok(created);
    expect(poolSchemaErrors(pool)).toEqual([]);
    expect(pool).toMatchObject({
      name: 'Transactional',
      type: 1,
      routingStrategy: 2,
      warmupInterval: 48,
      shouldOverflow: false,
      overflowPoolName: '',
    });
    expect(pool.ips.map((ip: Json) => ip.publicIp)).toEqual(['127.0.0.2', '2001:db8::2']);
    expect(pool.thirdPartySendingProviders.map((t: Json) => t.name)).toEqual(['sendgrid']);
    expect(created.text).toMatch(/"created":\d{19}/);

    const got = await getPool(pool.id);
    expect(poolSchemaErrors(got)).toEqual([]);
    expect(got).toEqual(pool);
    for (const p of await pools()) expect(poolSchemaErrors(p)).toEqual([]);

    const renamed = ok(await updatePool(pool.id, { name: 'Tx', ips: [{ publicIp: '127.0.0.2' }], routingStrategy: 0 }));
    expect(poolSchemaErrors(renamed)).toEqual([]);
    expect(renamed).toMatchObject({ name: 'Tx', routingStrategy: 0, routingMetaData: '{}', warmupInterval: 48 });
    expect(renamed.ips.map((ip: Json) => ip.id)).toEqual([a!.id]);
    expect(renamed.thirdPartySendingProviders.map((t: Json) => t.id)).toEqual([sg.id]);

    const deleted = ok(await api.call('DELETE', `/account/ippool/${pool.id}`, { account: key }));
    expect(schemaErrors('IPPoolDeleteResponse', deleted)).toEqual([]);
    expect(deleted).toEqual({ id: pool.id, message: 'IPPool (Tx) has been deleted successfully' });
    expectError(await api.call('GET', `/account/ippool/${pool.id}`, { account: key }), 406, 'IPPOOL_NOT_FOUND');
    const ips = (await api.call('GET', '/account/ip', { account: key })).body;
    expect(ips.map((ip: Json) => ip.publicIp)).toEqual(['127.0.0.2', '2001:db8::2']);
    // unassigned: the IP can join another pool
    ok(await createPool({ name: 'Next', ips: [{ publicIP: '127.0.0.2' }] }));
  });

  it('accepts metadata of each strategy naming members of the pool', async () => {
    const [a, b] = await allocate('127.0.0.2', '127.0.0.3');
    const t = await tpsp('relay');
    const list = (...e: string[]) => JSON.stringify(e);
    const byProvider = {
      '0': list(`IP_${a!.id}`),
      '11': list(`IP_${b!.id}`, `TPSP_${t.id}`),
      others: list(`TPSP_${t.id}`),
    };
    const p1 = ok(
      await createPool({
        name: 'p1',
        ips: [{ publicIP: '127.0.0.2' }, { publicIP: '127.0.0.3' }],
        tpsps: [t.id],
        routingStrategy: 1,
        routingMetaData: JSON.stringify(byProvider),
      }),
    );
    expect(JSON.parse(p1.routingMetaData)).toEqual(byProvider);
    const byDomain = { 'mail.example.com': list(`TPSP_${t.id}`), others: list(`TPSP_${t.id}`) };
    ok(await createPool({ name: 'p3', tpsps: [t.id], routingStrategy: 3, routingMetaData: JSON.stringify(byDomain) }));
  });

  it('pages and searches pools by name', async () => {
    for (const name of ['Alpha', 'beta', 'ALPHA two']) ok(await createPool({ name }));
    const page = await api.call('GET', '/account/ippool', { account: key, query: { limit: 2, offset: 1 } });
    expect(page.body.map((p: Json) => p.name)).toEqual(['Alpha', 'beta']);
    const found = await api.call('GET', '/account/ippool', { account: key, query: { search: 'alpha' } });
    expect(found.body.map((p: Json) => p.name)).toEqual(['Alpha', 'ALPHA two']);
  });

  it('refuses a duplicate name with 403 on create and rename', async () => {
    ok(await createPool({ name: 'Promo' }));
    expectError(await createPool({ name: 'PROMO' }), 403, 'IPPOOL_NAME_TAKEN');
    const other = ok(await createPool({ name: 'Other' }));
    expectError(await updatePool(other.id, { name: 'promo' }), 403, 'IPPOOL_NAME_TAKEN');
    expect((await pools()).map((p) => p.name)).toEqual(['Shared', 'Promo', 'Other']);
  });

  it('keeps an IP in at most one pool (403), also under concurrent creates', async () => {
    await allocate('127.0.0.2');
    const first = ok(await createPool({ name: 'A', ips: [{ publicIP: '127.0.0.2' }] }));
    expectError(await createPool({ name: 'B', ips: [{ publicIP: '127.0.0.2' }] }), 403, 'IP_IN_OTHER_POOL');
    const other = ok(await createPool({ name: 'C' }));
    expectError(await updatePool(other.id, { ips: [{ publicIP: '127.0.0.2' }] }), 403, 'IP_IN_OTHER_POOL');
    // re-saving the pool that holds it is fine
    ok(await updatePool(first.id, { ips: [{ publicIP: '127.0.0.2' }] }));

    await allocate('127.0.0.3');
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => createPool({ name: `race${i}`, ips: [{ publicIP: '127.0.0.3' }] })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 403)).toHaveLength(7);
    const holding = (await pools()).filter((p) => p.ips.some((ip) => ip.publicIp === '127.0.0.3'));
    expect(holding).toHaveLength(1);
  });

  it('validates the overflow pool: it must exist and must not lead back (422)', async () => {
    expectError(
      await createPool({ name: 'A', shouldOverflow: true, overflowPoolName: 'Nope' }),
      422,
      'OVERFLOW_POOL_NOT_FOUND',
    );
    expectError(await createPool({ name: 'A', shouldOverflow: true }), 422, 'OVERFLOW_POOL_REQUIRED');
    expectError(await createPool({ name: 'A', shouldOverflow: true, overflowPoolName: 'a' }), 422, 'OVERFLOW_CYCLE');
    const a = ok(await createPool({ name: 'A', shouldOverflow: true, overflowPoolName: 'shared' }));
    expect(a).toMatchObject({ shouldOverflow: true, overflowPoolName: 'Shared' });
    const b = ok(await createPool({ name: 'B', overflowPool: true, overflowPoolName: 'A' }));
    const c = ok(await createPool({ name: 'C', overflowStrategy: 1, overflowPoolName: 'B' }));
    expect(c).toMatchObject({ shouldOverflow: true, overflowPoolName: 'B' });
    expectError(await updatePool(a.id, { overflowPoolName: 'A' }), 422, 'OVERFLOW_CYCLE');
    expectError(await updatePool(a.id, { overflowPoolName: 'C' }), 422, 'OVERFLOW_CYCLE');
    expectError(await updatePool(b.id, { overflowPoolName: 'C' }), 422, 'OVERFLOW_CYCLE');
    expect((await getPool(a.id)).overflowPoolName).toBe('Shared');
    // the name follows a rename of the target
    ok(await updatePool(b.id, { name: 'Bee' }));
    expect((await getPool(c.id)).overflowPoolName).toBe('Bee');
    // a pool another one overflows to cannot be deleted until the link is cleared
    expectError(
      await api.call('DELETE', `/account/ippool/${b.id}`, { account: key }),
      403,
      'IPPOOL_IS_OVERFLOW_TARGET',
    );
    ok(await updatePool(c.id, { shouldOverflow: false, overflowPoolName: '' }));
    ok(await api.call('DELETE', `/account/ippool/${b.id}`, { account: key }));
    expectError(await createPool({ name: 'D', shouldOverflow: true, overflowPool: false, overflowPoolName: 'A' }), 422);
  });

  it('refuses routing metadata that is not JSON, of the wrong shape, or naming entities outside the pool, and changes nothing', async () => {
    const [a, b] = await allocate('127.0.0.2', '127.0.0.3');
    const cases: Array<[number, string]> = [
      [0, 'not json'],
      [0, '{"IP_1":"1"}'],
      [1, '{}'],
      [1, JSON.stringify({ '12': JSON.stringify([`IP_${a!.id}`]) })],
      [1, JSON.stringify({ '0': [`IP_${a!.id}`] })],
      [1, JSON.stringify({ '0': JSON.stringify([`IP_${b!.id}`]) })],
      [2, JSON.stringify({ [`IP_${a!.id}`]: 3 })],
      [2, JSON.stringify({ [`IP_${a!.id}`]: '0' })],
      [2, JSON.stringify({ [`IP_${b!.id}`]: '1' })],
      [2, JSON.stringify({ TPSP_1: '1' })],
      [3, JSON.stringify({ 'example.com': JSON.stringify([`IP_${b!.id}`]) })],
      [3, JSON.stringify({ 'not a domain': JSON.stringify([`IP_${a!.id}`]) })],
      [3, JSON.stringify({ 'example.com': JSON.stringify(Array.from({ length: 10_000 }, () => `IP_${a!.id}`)) })],
    ];
    for (const [routingStrategy, routingMetaData] of cases) {
      const result = await createPool({
        name: 'P',
        ips: [{ publicIP: '127.0.0.2' }],
        routingStrategy,
        routingMetaData,
      });
      expect(result.status, `${routingStrategy} ${routingMetaData.slice(0, 60)}`).toBe(422);
      expectError(result, 422);
    }
    expect((await pools()).map((p) => p.name)).toEqual(['Shared']);

    const pool = ok(
      await createPool({
        name: 'P',
        ips: [{ publicIP: '127.0.0.2' }],
        routingStrategy: 2,
        routingMetaData: JSON.stringify({ [`IP_${a!.id}`]: '1' }),
      }),
    );
    // removing the IP the metadata names, or switching strategy without matching metadata, is refused
    expectError(await updatePool(pool.id, { ips: [{ publicIP: '127.0.0.3' }] }), 422, 'INVALID_ROUTING_METADATA');
    expectError(await updatePool(pool.id, { routingStrategy: 1 }), 422, 'INVALID_ROUTING_METADATA');
    expect(await getPool(pool.id)).toEqual(pool);
  });

  describe('bad input', () => {
    it('answers 401 to no key, a wrong key and a sub-account key on every endpoint', async () => {
      const sub = (await api.call('POST', '/account/subaccount', { account: key, body: { name: 'x' } })).body.apiKey;
      const pool = ok(await createPool({ name: 'Keep' }));
      for (const [method, path, body] of [
        ['GET', '/account/ippool', undefined],
        ['POST', '/account/ippool', { name: 'x' }],
        ['GET', `/account/ippool/${pool.id}`, undefined],
        ['PUT', `/account/ippool/${pool.id}`, { name: 'y' }],
        ['DELETE', `/account/ippool/${pool.id}`, undefined],
      ] as const) {
        await expectAuthBattery(api, method, path, 'account', sub, { body });
      }
      expect((await pools()).map((p) => p.name)).toEqual(['Shared', 'Keep']);
    });

    it('answers 422 to malformed bodies, storing nothing', async () => {
      await allocate('127.0.0.2');
      const cases: Array<[string, { body?: unknown; raw?: string }]> = [
        ['malformed JSON', { raw: '{"name":' }],
        ['no body', { raw: '' }],
        ['name missing', { body: { routingStrategy: 0 } }],
        ['name empty', { body: { name: ' ' } }],
        ['name 101 characters', { body: { name: 'x'.repeat(101) } }],
        ['name a number', { body: { name: 5 } }],
        ['routingStrategy 4', { body: { name: 'x', routingStrategy: 4 } }],
        ['routingStrategy a string', { body: { name: 'x', routingStrategy: '0' } }],
        ['routingMetaData an object', { body: { name: 'x', routingMetaData: {} } }],
        ['ips of strings', { body: { name: 'x', ips: ['127.0.0.2'] } }],
        ['ip without publicIP', { body: { name: 'x', ips: [{}] } }],
        ['ip with both spellings', { body: { name: 'x', ips: [{ publicIP: '127.0.0.2', publicIp: '127.0.0.2' }] } }],
        ['ip not an address', { body: { name: 'x', ips: [{ publicIP: 'mail.example.com' }] } }],
        ['ip not allocated', { body: { name: 'x', ips: [{ publicIP: '127.0.0.99' }] } }],
        ['ip twice', { body: { name: 'x', ips: [{ publicIP: '127.0.0.2' }, { publicIP: '::ffff:127.0.0.2' }] } }],
        ['10,000 ips', { body: { name: 'x', ips: Array.from({ length: 10_000 }, () => ({ publicIP: '127.0.0.2' })) } }],
        ['10,000 tpsps', { body: { name: 'x', tpsps: Array.from({ length: 10_000 }, (_, i) => i + 1) } }],
        ['tpsps of strings', { body: { name: 'x', tpsps: ['1'] } }],
        ['unknown tpsp', { body: { name: 'x', tpsps: [99999] } }],
        ['tpsp id 0', { body: { name: 'x', tpsps: [0] } }],
        ['shouldOverflow a string', { body: { name: 'x', shouldOverflow: 'true' } }],
        ['warmupInterval 0', { body: { name: 'x', warmupInterval: 0 } }],
        ['extra field', { body: { name: 'x', type: 0 } }],
        ['metadata over the limit', { body: { name: 'x', routingMetaData: ' '.repeat(70_000) } }],
      ];
      for (const [label, options] of cases) {
        const result = await api.call('POST', '/account/ippool', { account: key, ...options });
        expect(result.status, label).toBe(422);
        expectError(result, 422);
      }
      expect((await pools()).map((p) => p.name)).toEqual(['Shared']);
    });

    it('answers 422 to a bad update body and changes nothing', async () => {
      const pool = ok(await createPool({ name: 'Stable' }));
      for (const update of [
        {},
        { name: '' },
        { routingStrategy: 9 },
        { ips: 'x' },
        { id: 3 },
        { overflowPoolName: 'Nowhere' },
        { shouldOverflow: true },
      ]) {
        expectError(await updatePool(pool.id, update), 422);
      }
      expect(await getPool(pool.id)).toEqual(pool);
    });

    it('answers 422 to bad paging parameters', async () => {
      for (const query of [{ limit: 0 }, { offset: -1 }, { limit: 'x' }]) {
        expectError(await api.call('GET', '/account/ippool', { account: key, query: query as never }), 422);
      }
    });

    it('never lets another account’s IPs, TPSPs or pools be used or touched', async () => {
      const other = await api.mailplane.createAccount({ name: 'other' });
      await api.call('PUT', '/account/ip/allocate', { account: other.apiKey, body: { ips: ['127.0.0.50'] } });
      const theirTpsp = await tpsp('theirs', other.apiKey);
      const theirPool = ok(
        await createPool({ name: 'Theirs', ips: [{ publicIP: '127.0.0.50' }], tpsps: [theirTpsp.id] }, other.apiKey),
      );
      const theirShared = (await pools(other.apiKey))[0]!;

      expectError(await createPool({ name: 'x', ips: [{ publicIP: '127.0.0.50' }] }), 422, 'IP_NOT_ALLOCATED');
      expectError(await createPool({ name: 'x', tpsps: [theirTpsp.id] }), 422, 'TPSP_NOT_FOUND');
      expectError(
        await createPool({ name: 'x', shouldOverflow: true, overflowPoolName: 'Theirs' }),
        422,
        'OVERFLOW_POOL_NOT_FOUND',
      );
      const mine = ok(await createPool({ name: 'Mine' }));
      expectError(await updatePool(mine.id, { tpsps: [theirTpsp.id] }), 422, 'TPSP_NOT_FOUND');
      for (const id of ['abc', '0', '-1', '99999', String(theirPool.id), String(theirShared.id)]) {
        expectError(await api.call('GET', `/account/ippool/${id}`, { account: key }), 406);
        expectError(await updatePool(id as never, { name: 'stolen' }), 406);
        expectError(await api.call('DELETE', `/account/ippool/${id}`, { account: key }), 406);
      }
      expect((await pools()).map((p) => p.name)).toEqual(['Shared', 'Mine']);
      const theirsAfter = await api.call('GET', `/account/ippool/${theirPool.id}`, { account: other.apiKey });
      expect(theirsAfter.body).toEqual(theirPool);
    });
  });
});
