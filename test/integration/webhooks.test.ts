import { beforeEach, describe, expect, it } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { useTestApi } from '../support/api.js';
import { expectAuthBattery, expectError } from '../support/bad-input.js';
import { storeKinds } from '../support/databases.js';
import { schemaErrors } from '../support/openapi.js';

const TOGGLES = [
  'processed',
  'delivered',
  'dropped',
  'softBounced',
  'hardBounced',
  'opened',
  'clicked',
  'unsubscribed',
  'spam',
  'sent',
  'smtpDropped',
  'uniqueOpen',
  'uniqueClick',
  'incident',
];

/** The reference's CreateWebhookRequest example, verbatim. */
const referenceExample = {
  smtpDropped: false,
  hardBounced: true,
  dropped: false,
  delivered: true,
  opened: true,
  clicked: true,
  sent: true,
  enabled: true,
  url: 'https://app.hooli.com/email/webhook',
  processed: true,
  unsubscribed: true,
  uniqueOpen: true,
  uniqueClick: true,
  softBounced: false,
  spam: true,
};

const SECRET = /^whsec_[0-9A-Za-z]{32}$/;

describe.each(storeKinds)('webhooks API on %s', (kind) => {
  const api = useTestApi(kind);
  let key: string;
  beforeEach(() => {
    key = api.accountKey;
  });

  const create = (body: Record<string, unknown>) => api.call('POST', '/account/webhook', { account: key, body });
  const list = async (account = key) =>
    (await api.call('GET', '/account/webhook', { account, query: { limit: 100 } })).body;
  /** The stored record, straight from the store (includes the sealed secret). */
  const stored = async (id: number) => {
    const account = await contextOf(api.mailplane).store.accounts.first();
    return contextOf(api.mailplane).store.webhooks.get(account!.id, id);
  };

  it('creates, reads, lists, updates and deletes a webhook, each response matching the reference schema', async () => {
    expect(schemaErrors('CreateWebhookRequest', referenceExample)).toEqual([]);
    const created = await create(referenceExample);
    expect(created.status).toBe(200);
    expect(schemaErrors('Webhook', created.body)).toEqual([]);
    const { secret, ...webhook } = created.body;
    // mailplane's additions (docs/webhooks.md): null on a webhook that was never disabled or rotated.
    // `incident` too, off unless given (incident notifications, docs/reputation.md).
    const additions = { disabledReason: null, disabledAt: null, previousSecretExpiresAt: null, incident: false };
    expect(webhook).toEqual({ ...referenceExample, ...additions, id: webhook.id, created: webhook.created });
    expect(Object.keys(webhook).sort()).toEqual(
      [...new Set(['id', 'enabled', 'url', 'created', ...TOGGLES, ...Object.keys(additions)])].sort(),
    );
    expect(secret).toMatch(SECRET);
    expect(created.text).toMatch(/"created":\d{19}[,}]/);

    const id = webhook.id;
    const got = await api.call('GET', `/account/webhook/${id}/`, { account: key });
    expect(got.status).toBe(200);
    expect(schemaErrors('Webhook', got.body)).toEqual([]);
    expect(got.body).toEqual(webhook);

    const listed = await api.call('GET', '/account/webhook/', { account: key });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([webhook]);
    for (const item of listed.body) expect(schemaErrors('Webhook', item)).toEqual([]);

    const updated = await api.call('PUT', `/account/webhook/${id}`, {
      account: key,
      body: { enabled: false, spam: false, softBounced: true, url: 'https://app.hooli.com/v2/hook' },
    });
    expect(updated.status).toBe(200);
    expect(schemaErrors('Webhook', updated.body)).toEqual([]);
    expect(updated.body).toEqual({
      ...webhook,
      enabled: false,
      spam: false,
      softBounced: true,
      url: 'https://app.hooli.com/v2/hook',
    });

    const deleted = await api.call('DELETE', `/account/webhook/${id}`, { account: key });
    expect(deleted.status).toBe(200);
    expect(schemaErrors('DeleteWebhookResponse', deleted.body)).toEqual([]);
    expect(deleted.body).toEqual({
      id,
      message: 'Webhook (https://app.hooli.com/v2/hook) has been deleted successfully.',
    });
    expectError(await api.call('GET', `/account/webhook/${id}`, { account: key }), 406, 'WEBHOOK_NOT_FOUND');
    expectError(await api.call('DELETE', `/account/webhook/${id}`, { account: key }), 406, 'WEBHOOK_NOT_FOUND');
    expect(await list()).toEqual([]);
  });

  it('defaults to enabled with every switch off, and normalises the URL', async () => {
    const created = await create({ url: 'HTTPS://Hooks.Example.COM:443' });
    expect(created.status).toBe(200);
    expect(created.body.url).toBe('https://hooks.example.com/');
    expect(created.body.enabled).toBe(true);
    for (const toggle of TOGGLES) expect(created.body[toggle], toggle).toBe(false);
  });

  it('shows the signing secret once, stores it only encrypted, and rotates it on request', async () => {
    const created = await create({ url: 'https://hooks.example.com/a', delivered: true });
    const { id, secret } = created.body;
    expect(secret).toMatch(SECRET);
    const other = await create({ url: 'https://hooks.example.com/b' });
    expect(other.body.secret).toMatch(SECRET);
    expect(other.body.secret).not.toBe(secret);

    const got = await api.call('GET', `/account/webhook/${id}`, { account: key });
    const listed = await api.call('GET', '/account/webhook', { account: key });
    const updated = await api.call('PUT', `/account/webhook/${id}`, { account: key, body: { opened: true } });
    const deleted = await api.call('DELETE', `/account/webhook/${other.body.id}`, { account: key });
    for (const response of [got, listed, updated, deleted]) {
      expect(response.text).not.toContain(secret);
      expect(response.text).not.toContain(other.body.secret);
      expect(response.text).not.toContain('"secret"');
    }

    const record = await stored(id);
    expect(JSON.stringify(record, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(secret);
    expect(contextOf(api.mailplane).secrets.decrypt(record!.secretSealed)).toBe(secret);

    const rotated = await api.call('PUT', `/account/webhook/${id}`, { account: key, body: { rotateSecret: true } });
    expect(rotated.status).toBe(200);
    expect(schemaErrors('Webhook', rotated.body)).toEqual([]);
    expect(rotated.body.secret).toMatch(SECRET);
    expect(rotated.body.secret).not.toBe(secret);
    expect(rotated.body).toMatchObject({ id, delivered: true, opened: true });
    expect(contextOf(api.mailplane).secrets.decrypt((await stored(id))!.secretSealed)).toBe(rotated.body.secret);

    const notRotated = await api.call('PUT', `/account/webhook/${id}`, { account: key, body: { rotateSecret: false } });
    expect(notRotated.body.secret).toBeUndefined();
    expect(contextOf(api.mailplane).secrets.decrypt((await stored(id))!.secretSealed)).toBe(rotated.body.secret);
  });

  it('pages and searches on the URL with limit, offset and search', async () => {
    for (const url of [
      'https://alpha.example/',
      'https://beta.example/',
      'https://x.example/ALPHA',
      'https://gamma.example/',
    ]) {
      await create({ url });
    }
    const page = await api.call('GET', '/account/webhook', { account: key, query: { limit: 2, offset: 1 } });
    expect(page.body.map((w: { url: string }) => w.url)).toEqual(['https://beta.example/', 'https://x.example/ALPHA']);
    const found = await api.call('GET', '/account/webhook', { account: key, query: { search: 'Alpha' } });
    expect(found.body.map((w: { url: string }) => w.url)).toEqual([
      'https://alpha.example/',
      'https://x.example/ALPHA',
    ]);
    const none = await api.call('GET', '/account/webhook', { account: key, query: { search: '%' } });
    expect(none.body).toEqual([]);
  });

  it('refuses a URL the account already has with 403, on create and on update, but not across accounts', async () => {
    await create({ url: 'https://dup.example/hook' });
    expectError(await create({ url: 'https://DUP.example:443/hook' }), 403, 'WEBHOOK_URL_TAKEN');
    const second = await create({ url: 'https://dup.example/other' });
    expectError(
      await api.call('PUT', `/account/webhook/${second.body.id}`, {
        account: key,
        body: { url: 'https://dup.example/hook', spam: true },
      }),
      403,
    );
    expect((await api.call('GET', `/account/webhook/${second.body.id}`, { account: key })).body).toMatchObject({
      url: 'https://dup.example/other',
      spam: false,
    });
    const other = await api.mailplane.createAccount({ name: 'other' });
    expect(
      (await api.call('POST', '/account/webhook', { account: other.apiKey, body: { url: 'https://dup.example/hook' } }))
        .status,
    ).toBe(200);
  });

  it('accepts private and loopback targets at registration (delivery decides)', async () => {
    for (const url of ['http://127.0.0.1:3000/hook', 'http://localhost/', 'http://10.0.0.1/', 'http://[::1]/']) {
      expect((await create({ url })).status, url).toBe(200);
    }
  });

  describe('bad input', () => {
    it('answers 401 to no key, a wrong key and a sub-account key on every endpoint, and changes nothing', async () => {
      const hook = (await create({ url: 'https://keyed.example/', opened: true })).body;
      const sub = (await api.call('POST', '/account/subaccount', { account: key, body: { name: 'x' } })).body;
      for (const [method, path, body] of [
        ['GET', '/account/webhook', undefined],
        ['POST', '/account/webhook', { url: 'https://new.example/' }],
        ['GET', `/account/webhook/${hook.id}`, undefined],
        ['PUT', `/account/webhook/${hook.id}`, { enabled: false, rotateSecret: true }],
        ['DELETE', `/account/webhook/${hook.id}`, undefined],
      ] as const) {
        await expectAuthBattery(api, method, path, 'account', sub.apiKey, { body });
      }
      const { secret, ...visible } = hook;
      expect(await list()).toEqual([visible]);
      expect(contextOf(api.mailplane).secrets.decrypt((await stored(hook.id))!.secretSealed)).toBe(secret);
    });

    it('answers 422 to bad URLs, wrong types, missing and extra fields, and stores nothing', async () => {
      const cases: Array<[string, { body?: unknown; raw?: string }]> = [
        ['malformed JSON', { raw: '{"url":' }],
        ['no body', { raw: '' }],
        ['array body', { body: [] }],
        ['string body', { body: 'https://a.example/' }],
        ['url missing', { body: { enabled: true } }],
        ['url a number', { body: { url: 42 } }],
        ['url null', { body: { url: null } }],
        ['url empty', { body: { url: '' } }],
        ['ftp URL', { body: { url: 'ftp://files.example.com/hook' } }],
        ['javascript URL', { body: { url: 'javascript:alert(1)' } }],
        ['file URL', { body: { url: 'file:///etc/passwd' } }],
        ['credentials', { body: { url: 'https://user:pass@hooks.example.com/' } }],
        ['user only', { body: { url: 'https://user@hooks.example.com/' } }],
        ['10k-character URL', { body: { url: `https://hooks.example.com/${'a'.repeat(10_000)}` } }],
        ['CRLF in URL', { body: { url: 'https://hooks.example.com/x\r\nX-Injected: yes' } }],
        ['fragment', { body: { url: 'https://hooks.example.com/#frag' } }],
        ['relative URL', { body: { url: '/hook' } }],
        ['no host', { body: { url: 'https://' } }],
        ['toggle a string', { body: { url: 'https://ok.example/', opened: 'yes' } }],
        ['toggle a number', { body: { url: 'https://ok.example/', spam: 1 } }],
        ['toggle null', { body: { url: 'https://ok.example/', delivered: null } }],
        ['enabled a string', { body: { url: 'https://ok.example/', enabled: 'true' } }],
        ['extra field', { body: { url: 'https://ok.example/', admin: true } }],
        ['own secret', { body: { url: 'https://ok.example/', secret: 'whsec_mine' } }],
        ['rotateSecret on create', { body: { url: 'https://ok.example/', rotateSecret: true } }],
        ['id', { body: { url: 'https://ok.example/', id: 5 } }],
        ['misspelt toggle', { body: { url: 'https://ok.example/', soft_bounced: true } }],
        ['prototype key', { raw: '{"url":"https://ok.example/","__proto__":{"admin":true}}' }],
      ];
      for (const [label, options] of cases) {
        const result = await api.call('POST', '/account/webhook', { account: key, ...options });
        expect(result.status, label).toBe(422);
        expectError(result, 422);
      }
      expect(await list()).toEqual([]);
      const longest = `https://hooks.example.com/${'a'.repeat(2048 - 'https://hooks.example.com/'.length)}`;
      expect((await create({ url: longest })).status).toBe(200);
    });

    it('answers 422 to bad paging parameters', async () => {
      for (const query of [
        { limit: 0 },
        { limit: -1 },
        { offset: -1 },
        { limit: 'ten' },
        { limit: '1.5' },
        { offset: '1e3' },
        { search: 'x'.repeat(201) },
      ]) {
        expectError(await api.call('GET', '/account/webhook', { account: key, query: query as never }), 422);
      }
    });

    it('answers 422 to a bad update body and changes nothing', async () => {
      const { body } = await create({ url: 'https://stable.example/', opened: true });
      const { secret, ...before } = body;
      for (const update of [
        {},
        { url: 'ftp://stable.example/' },
        { url: 'https://a:b@stable.example/' },
        { url: 'https://stable.example/\r\n' },
        { url: `https://stable.example/${'a'.repeat(10_000)}` },
        { url: null },
        { enabled: 'no' },
        { opened: 0 },
        { rotateSecret: 'yes' },
        { secret: 'whsec_mine' },
        { id: 99 },
        { created: 1 },
        { enabled: false, extra: 1 },
      ]) {
        expectError(await api.call('PUT', `/account/webhook/${body.id}`, { account: key, body: update }), 422);
      }
      expectError(
        await api.call('PUT', `/account/webhook/${body.id}`, { account: key, raw: '{"enabled":' }),
        422,
        'MALFORMED_JSON',
      );
      expect((await api.call('GET', `/account/webhook/${body.id}`, { account: key })).body).toEqual(before);
      expect(contextOf(api.mailplane).secrets.decrypt((await stored(body.id))!.secretSealed)).toBe(secret);
    });

    it('answers 406 to non-numeric, unknown and another account’s ids, and leaves the other account’s webhook alone', async () => {
      const other = await api.mailplane.createAccount({ name: 'other' });
      const foreign = (
        await api.call('POST', '/account/webhook', {
          account: other.apiKey,
          body: { url: 'https://theirs.example/', spam: true },
        })
      ).body;
      const { secret: foreignSecret, ...foreignVisible } = foreign;
      const foreignRecord = await contextOf(api.mailplane).store.webhooks.get(other.account.id, foreign.id);
      for (const id of ['abc', '0', '-1', '1.5', '99999', '1e3', '%20', String(foreign.id)]) {
        expectError(await api.call('GET', `/account/webhook/${id}`, { account: key }), 406);
        expectError(
          await api.call('PUT', `/account/webhook/${id}`, {
            account: key,
            body: { enabled: false, rotateSecret: true },
          }),
          406,
        );
        expectError(await api.call('DELETE', `/account/webhook/${id}`, { account: key }), 406);
      }
      expect(await list(other.apiKey)).toEqual([foreignVisible]);
      expect(await list()).toEqual([]);
      expect(foreignRecord).not.toBeNull();
      const after = await contextOf(api.mailplane).store.webhooks.get(other.account.id, foreign.id);
      expect(after).toEqual(foreignRecord);
      expect(contextOf(api.mailplane).secrets.decrypt(after!.secretSealed)).toBe(foreignSecret);
    });
  });
});
