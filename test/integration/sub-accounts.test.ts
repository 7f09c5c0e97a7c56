import { beforeEach, describe, expect, it } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { useTestApi } from '../support/api.js';
import { expectAuthBattery, expectError } from '../support/bad-input.js';
import { storeKinds } from '../support/databases.js';
import { schemaErrors } from '../support/openapi.js';

describe.each(storeKinds)('sub-accounts API on %s', (kind) => {
  const api = useTestApi(kind);
  let key: string;
  beforeEach(() => {
    key = api.accountKey;
  });

  const create = (name: string, extra: Record<string, unknown> = {}) =>
    api.call('POST', '/account/subaccount/', { account: key, body: { name, ...extra } });

  it('starts with the default sub-account, which cannot be deleted', async () => {
    const list = await api.call('GET', '/account/subaccount', { account: key });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({ type: 0, name: 'Default' });
    expectError(
      await api.call('DELETE', `/account/subaccount/${list.body[0].id}`, { account: key }),
      406,
      'DEFAULT_SUBACCOUNT_UNDELETABLE',
    );
  });

  it('creates, reads, lists, renames and deletes a sub-account, each response matching the reference schema', async () => {
    const created = await create('Hooli', { companyName: 'Hooli Inc' });
    expect(created.status).toBe(201);
    expect(schemaErrors('SubAccount', created.body)).toEqual([]);
    expect(created.body).toMatchObject({ name: 'Hooli', companyName: 'Hooli Inc', type: 1, blocked: false });
    expect(created.body.apiKey).toMatch(/^mpsk_[0-9A-Za-z]{32}$/);
    expect(created.body.smtpAuths).toHaveLength(1);
    expect(created.body.smtpAuths[0].password).toMatch(/^[0-9A-Za-z]{32}$/);
    // nanosecond timestamps are written as exact integers, digit for digit
    expect(created.text).toMatch(/"created":\d{19},/);

    const id = created.body.id;
    const got = await api.call('GET', `/account/subaccount/${id}/`, { account: key });
    expect(got.status).toBe(200);
    expect(schemaErrors('SubAccount', got.body)).toEqual([]);
    expect(got.body.apiKey).toBe(created.body.apiKey);

    const list = await api.call('GET', '/account/subaccount/', { account: key, query: { search: 'HOO' } });
    expect(list.body.map((s: { id: number }) => s.id)).toEqual([id]);
    for (const item of list.body) expect(schemaErrors('SubAccount', item)).toEqual([]);

    const renamed = await api.call('PUT', `/account/subaccount/${id}`, { account: key, body: { name: 'Hooli XYZ' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Hooli XYZ');

    const deleted = await api.call('DELETE', `/account/subaccount/${id}`, { account: key });
    expect(deleted.status).toBe(200);
    expect(schemaErrors('DeleteSubAccountResponse', deleted.body)).toEqual([]);
    expect(deleted.body).toEqual({ id, message: 'Sub-Account (Hooli XYZ) has been deleted successfully.' });
    expectError(await api.call('GET', `/account/subaccount/${id}`, { account: key }), 406, 'SUBACCOUNT_NOT_FOUND');
  });

  it('gives each sub-account a key that authenticates it and only it', async () => {
    const a = await create('A');
    const b = await create('B');
    expect(a.body.apiKey).not.toBe(b.body.apiKey);
    const { secrets, store } = contextOf(api.mailplane);
    expect((await store.subAccounts.findByApiKeyHash(secrets.lookupHash(a.body.apiKey)))?.id).toBe(a.body.id);
    expect((await store.subAccounts.findByApiKeyHash(secrets.lookupHash(b.body.apiKey)))?.id).toBe(b.body.id);
    // keys are stored as hash + ciphertext only
    const stored = await contextOf(api.mailplane).store.subAccounts.get(a.body.accountId, a.body.id);
    expect(JSON.stringify(stored, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(a.body.apiKey);
  });

  it('pages and searches with limit, offset and search', async () => {
    for (const name of ['alpha', 'Beta', 'ALPHA two', 'gamma']) await create(name);
    const page = await api.call('GET', '/account/subaccount', { account: key, query: { limit: 2, offset: 1 } });
    expect(page.body.map((s: { name: string }) => s.name)).toEqual(['alpha', 'Beta']);
    const found = await api.call('GET', '/account/subaccount', { account: key, query: { search: 'alpha' } });
    expect(found.body.map((s: { name: string }) => s.name)).toEqual(['alpha', 'ALPHA two']);
  });

  it('refuses a duplicate name with 403, case-insensitively, on create and on rename', async () => {
    await create('Acme');
    expectError(await create('acme'), 403, 'SUBACCOUNT_NAME_TAKEN');
    const other = await create('Other');
    expectError(
      await api.call('PUT', `/account/subaccount/${other.body.id}`, { account: key, body: { name: 'ACME' } }),
      403,
    );
  });

  it('blocks and unblocks a sub-account with a reason', async () => {
    const { body } = await create('Spammy');
    const blocked = await api.call('PUT', `/account/subaccount/${body.id}`, {
      account: key,
      body: { blocked: true, block_reason: 'spam rate above 0.1%' },
    });
    expect(blocked.body).toMatchObject({ blocked: true, block_reason: 'spam rate above 0.1%' });
    expect(blocked.body.blocked_at).toBeGreaterThan(0);
    const unblocked = await api.call('PUT', `/account/subaccount/${body.id}`, {
      account: key,
      body: { blocked: false },
    });
    expect(unblocked.body).toMatchObject({ blocked: false, block_reason: '', blocked_at: 0 });
  });

  describe('bad input', () => {
    it('answers 401 to no key, a wrong key and the other kind of key on every endpoint', async () => {
      const sub = (await create('Keyed')).body;
      const id = sub.id;
      for (const [method, path, body] of [
        ['GET', '/account/subaccount', undefined],
        ['POST', '/account/subaccount', { name: 'x' }],
        ['GET', `/account/subaccount/${id}`, undefined],
        ['PUT', `/account/subaccount/${id}`, { name: 'x' }],
        ['DELETE', `/account/subaccount/${id}`, undefined],
      ] as const) {
        await expectAuthBattery(api, method, path, 'account', sub.apiKey, { body });
      }
      const after = await api.call('GET', '/account/subaccount', { account: key });
      expect(after.body.map((s: { name: string }) => s.name)).toEqual(['Default', 'Keyed']);
    });

    it('answers 422 to malformed JSON, wrong types, missing, extra and over-long fields', async () => {
      const cases: Array<[string, { body?: unknown; raw?: string }]> = [
        ['malformed JSON', { raw: '{"name":' }],
        ['no body', { raw: '' }],
        ['array body', { body: [] }],
        ['name missing', { body: { companyName: 'x' } }],
        ['name a number', { body: { name: 42 } }],
        ['name null', { body: { name: null } }],
        ['name empty', { body: { name: '   ' } }],
        ['name 101 characters', { body: { name: 'x'.repeat(101) } }],
        ['name with a newline', { body: { name: 'a\nb' } }],
        ['extra field', { body: { name: 'ok', admin: true } }],
        ['prototype key', { raw: '{"name":"ok","__proto__":{"admin":true}}' }],
        ['companyName a number', { body: { name: 'ok', companyName: 5 } }],
      ];
      for (const [label, options] of cases) {
        const result = await api.call('POST', '/account/subaccount', { account: key, ...options });
        expect(result.status, label).toBe(422);
        expectError(result, 422);
      }
      const ok100 = await create('y'.repeat(100));
      expect(ok100.status).toBe(201);
      const list = await api.call('GET', '/account/subaccount', { account: key });
      expect(list.body).toHaveLength(2);
    });

    it('answers 422 to bad paging parameters', async () => {
      for (const query of [
        { limit: 0 },
        { limit: -1 },
        { offset: -1 },
        { limit: 'ten' },
        { limit: '1.5' },
        { offset: '1e3' },
      ]) {
        expectError(await api.call('GET', '/account/subaccount', { account: key, query: query as never }), 422);
      }
    });

    it('answers 422 to a bad update body and changes nothing', async () => {
      const { body } = await create('Stable');
      for (const update of [
        {},
        { name: 7 },
        { blocked: 'yes' },
        { name: 'z'.repeat(101) },
        { id: 99 },
        { apiKey: 'mine' },
      ]) {
        expectError(await api.call('PUT', `/account/subaccount/${body.id}`, { account: key, body: update }), 422);
      }
      const after = await api.call('GET', `/account/subaccount/${body.id}`, { account: key });
      expect(after.body).toMatchObject({ name: 'Stable', blocked: false, apiKey: body.apiKey });
    });

    it('answers 406 to non-numeric, unknown and another account’s ids', async () => {
      const other = await api.mailplane.createAccount({ name: 'other' });
      const foreignId = other.defaultSubAccount.id;
      for (const id of ['abc', '0', '-1', '1.5', '99999', '1e3', '%20', String(foreignId)]) {
        expectError(await api.call('GET', `/account/subaccount/${id}`, { account: key }), 406);
        expectError(await api.call('PUT', `/account/subaccount/${id}`, { account: key, body: { name: 'taken' } }), 406);
        expectError(await api.call('DELETE', `/account/subaccount/${id}`, { account: key }), 406);
      }
      const foreign = await api.call('GET', '/account/subaccount', { account: other.apiKey });
      expect(foreign.body.map((s: { name: string }) => s.name)).toEqual(['Default']);
    });

    it('answers 404 and 405 for unknown routes and methods', async () => {
      expectError(await api.call('GET', '/account/nothing', { account: key }), 404, 'ROUTE_NOT_FOUND');
      expectError(await api.call('PATCH', '/account/subaccount', { account: key }), 405, 'METHOD_NOT_ALLOWED');
    });

    it('answers 413 to a body over the limit', async () => {
      const result = await api.call('POST', '/account/subaccount', {
        account: key,
        raw: JSON.stringify({ name: 'x'.repeat(9 * 1024 * 1024) }),
      });
      expectError(result, 413, 'PAYLOAD_TOO_LARGE');
    });
  });
});
