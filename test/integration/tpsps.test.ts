import { beforeEach, describe, expect, it } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { useTestApi } from '../support/api.js';
import { expectAuthBattery, expectError } from '../support/bad-input.js';
import { storeKinds } from '../support/databases.js';
import { schemaErrors } from '../support/openapi.js';

describe.each(storeKinds)('TPSPs API on %s', (kind) => {
  const api = useTestApi(kind);
  let key: string;
  beforeEach(() => {
    key = api.accountKey;
  });

  const create = (body: Record<string, unknown>) => api.call('POST', '/account/tpsp', { account: key, body });
  const names = async () =>
    (
      (await api.call('GET', '/account/tpsp', { account: key, query: { limit: 100 } })).body as Array<{ name: string }>
    ).map((t) => t.name);

  it('creates, reads, lists, updates and deletes a TPSP, each response matching ThirdPartySendingProvider', async () => {
    const created = await create({
      name: 'relay',
      type: 3,
      host: 'SMTP.Example.net',
      port: 2525,
      security: 'none',
      username: 'u1',
      password: 's3cret-pass',
    });
    expect(created.status).toBe(200);
    expect(schemaErrors('ThirdPartySendingProvider', created.body)).toEqual([]);
    expect(created.body).toMatchObject({
      name: 'relay',
      type: 3,
      host: 'smtp.example.net',
      port: 2525,
      security: 'none',
      username: 'u1',
      hasPassword: true,
      endpoint: 'smtp.example.net',
      key: 'u1',
      secret: '',
    });
    expect(created.text).not.toContain('s3cret-pass');
    const id = created.body.id;

    const got = await api.call('GET', `/account/tpsp/${id}/`, { account: key });
    expect(got.status).toBe(200);
    expect(schemaErrors('ThirdPartySendingProvider', got.body)).toEqual([]);
    expect(got.text).not.toContain('s3cret-pass');

    const listed = await api.call('GET', '/account/tpsp', { account: key, query: { search: 'REL' } });
    expect(listed.body.map((t: { id: number }) => t.id)).toEqual([id]);
    for (const t of listed.body) expect(schemaErrors('ThirdPartySendingProvider', t)).toEqual([]);

    const updated = await api.call('PUT', `/account/tpsp/${id}`, {
      account: key,
      body: { name: 'relay2', port: 465, security: 'tls' },
    });
    expect(updated.status).toBe(200);
    expect(schemaErrors('ThirdPartySendingProvider', updated.body)).toEqual([]);
    expect(updated.body).toMatchObject({
      name: 'relay2',
      port: 465,
      security: 'tls',
      host: 'smtp.example.net',
      hasPassword: true,
    });
    const cleared = await api.call('PUT', `/account/tpsp/${id}`, { account: key, body: { password: '' } });
    expect(cleared.body.hasPassword).toBe(false);

    const deleted = await api.call('DELETE', `/account/tpsp/${id}`, { account: key });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id, message: 'TPSP (relay2) has been deleted successfully' });
    expectError(await api.call('GET', `/account/tpsp/${id}`, { account: key }), 406, 'TPSP_NOT_FOUND');
  });

  it('stores the password encrypted and can decrypt it for delivery', async () => {
    const { body } = await create({ name: 'sg', type: 1, username: 'apikey', password: 'SG.very-secret' });
    const { store, secrets } = contextOf(api.mailplane);
    const account = await store.accounts.findByApiKeyHash(secrets.lookupHash(key));
    const stored = await store.tpsps.get(account!.id, body.id);
    expect(stored?.passwordSealed).not.toContain('very-secret');
    expect(secrets.decrypt(stored!.passwordSealed)).toBe('SG.very-secret');
  });

  it('fills per-kind default hosts, ports and TLS modes', async () => {
    const expected: Array<[number, string, number, string]> = [
      [0, 'email-smtp.us-east-1.amazonaws.com', 587, 'starttls'],
      [1, 'smtp.sendgrid.net', 587, 'starttls'],
      [2, 'smtp.mailgun.org', 587, 'starttls'],
      [4, 'smtp.postmarkapp.com', 587, 'starttls'],
      [5, 'smtp-relay.gmail.com', 587, 'starttls'],
    ];
    for (const [type, host, port, security] of expected) {
      const { body } = await create({ name: `k${type}`, type });
      expect(body).toMatchObject({ type, host, port, security, hasPassword: false });
    }
    expect((await create({ name: 'implicit', type: 1, port: 465 })).body.security).toBe('tls');
    expectError(await create({ name: 'custom', type: 3 }), 422);
  });

  it('refuses a duplicate name with 403, case-insensitively, on create and rename', async () => {
    await create({ name: 'Mailgun', type: 2 });
    expectError(await create({ name: 'MAILGUN', type: 2 }), 403, 'TPSP_NAME_TAKEN');
    const other = await create({ name: 'Other', type: 2 });
    expectError(
      await api.call('PUT', `/account/tpsp/${other.body.id}`, { account: key, body: { name: 'mailgun' } }),
      403,
      'TPSP_NAME_TAKEN',
    );
    expect(await names()).toEqual(['Mailgun', 'Other']);
  });

  it('refuses to delete a TPSP that serves a pool with 403', async () => {
    const { body } = await create({ name: 'sg', type: 1 });
    expect(
      (await api.call('POST', '/account/ippool', { account: key, body: { name: 'P', tpsps: [body.id] } })).status,
    ).toBe(200);
    expectError(await api.call('DELETE', `/account/tpsp/${body.id}`, { account: key }), 403, 'TPSP_IN_POOL');
    expect(await names()).toEqual(['sg']);
  });

  describe('bad input', () => {
    it('answers 401 to no key, a wrong key and a sub-account key on every endpoint', async () => {
      const sub = (await api.call('POST', '/account/subaccount', { account: key, body: { name: 'x' } })).body.apiKey;
      const { body } = await create({ name: 'keep', type: 1 });
      for (const [method, path, reqBody] of [
        ['GET', '/account/tpsp', undefined],
        ['POST', '/account/tpsp', { name: 'x', type: 1 }],
        ['GET', `/account/tpsp/${body.id}`, undefined],
        ['PUT', `/account/tpsp/${body.id}`, { name: 'y' }],
        ['DELETE', `/account/tpsp/${body.id}`, undefined],
      ] as const) {
        await expectAuthBattery(api, method, path, 'account', sub, { body: reqBody });
      }
      expect(await names()).toEqual(['keep']);
    });

    it('answers 422 to malformed bodies, storing nothing', async () => {
      const cases: Array<[string, { body?: unknown; raw?: string }]> = [
        ['malformed JSON', { raw: '{"name":' }],
        ['no body', { raw: '' }],
        ['name missing', { body: { type: 1 } }],
        ['type missing', { body: { name: 'x' } }],
        ['type 6', { body: { name: 'x', type: 6 } }],
        ['type -1', { body: { name: 'x', type: -1 } }],
        ['type a string', { body: { name: 'x', type: '1' } }],
        ['type fractional', { body: { name: 'x', type: 1.5 } }],
        ['name 101 characters', { body: { name: 'x'.repeat(101), type: 1 } }],
        ['port 0', { body: { name: 'x', type: 1, port: 0 } }],
        ['port 65536', { body: { name: 'x', type: 1, port: 65536 } }],
        ['bad host', { body: { name: 'x', type: 3, host: 'smtp example' } }],
        ['host with a scheme', { body: { name: 'x', type: 3, host: 'smtp://relay.example.com' } }],
        ['unknown security', { body: { name: 'x', type: 1, security: 'ssl' } }],
        ['password over 1000', { body: { name: 'x', type: 1, password: 'p'.repeat(1001) } }],
        ['password a number', { body: { name: 'x', type: 1, password: 123 } }],
        ['extra field', { body: { name: 'x', type: 1, secret: 'y' } }],
        ['huge array as name', { body: { name: Array.from({ length: 10_000 }, () => 'a'), type: 1 } }],
      ];
      for (const [label, options] of cases) {
        const result = await api.call('POST', '/account/tpsp', { account: key, ...options });
        expect(result.status, label).toBe(422);
        expectError(result, 422);
      }
      expect(await names()).toEqual([]);
    });

    it('answers 422 to a bad update body and changes nothing', async () => {
      const { body } = await create({ name: 'stable', type: 1, password: 'pw' });
      for (const update of [
        {},
        { port: 'x' },
        { type: 9 },
        { host: '' },
        { name: '' },
        { id: 5 },
        { hasPassword: false },
      ]) {
        expectError(await api.call('PUT', `/account/tpsp/${body.id}`, { account: key, body: update }), 422);
      }
      const after = await api.call('GET', `/account/tpsp/${body.id}`, { account: key });
      expect(after.body).toMatchObject({
        name: 'stable',
        type: 1,
        host: 'smtp.sendgrid.net',
        port: 587,
        hasPassword: true,
      });
    });

    it('answers 422 to bad paging parameters', async () => {
      for (const query of [{ limit: 0 }, { offset: -1 }, { limit: '1.5' }]) {
        expectError(await api.call('GET', '/account/tpsp', { account: key, query: query as never }), 422);
      }
    });

    it('answers 406 to non-numeric, unknown and another account’s ids, and changes nothing', async () => {
      const other = await api.mailplane.createAccount({ name: 'other' });
      const theirs = await api.call('POST', '/account/tpsp', {
        account: other.apiKey,
        body: { name: 'theirs', type: 1 },
      });
      for (const id of ['abc', '0', '-1', '99999', String(theirs.body.id)]) {
        expectError(await api.call('GET', `/account/tpsp/${id}`, { account: key }), 406);
        expectError(await api.call('PUT', `/account/tpsp/${id}`, { account: key, body: { name: 'stolen' } }), 406);
        expectError(await api.call('DELETE', `/account/tpsp/${id}`, { account: key }), 406);
      }
      const still = await api.call('GET', `/account/tpsp/${theirs.body.id}`, { account: other.apiKey });
      expect(still.body).toMatchObject({ name: 'theirs' });
    });
  });
});
