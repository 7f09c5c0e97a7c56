import { createPublicKey, createSign, createVerify } from 'node:crypto';
import { contextOf } from '../../src/instance-context.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { useTestApi, type CreatedSubAccount } from '../support/api.js';
import { expectAuthBattery, expectError } from '../support/bad-input.js';
import { storeKinds } from '../support/databases.js';
import { schemaErrors } from '../support/openapi.js';

const RECORD_KEYS = ['dkim', 'spf', 'returnPath', 'track', 'dmarc'] as const;

/** Validates a Domain response, its nested records included, against the reference schemas. */
function expectDomainSchema(body: unknown): void {
  expect(schemaErrors('Domain', body)).toEqual([]);
  const domain = body as Record<string, unknown>;
  for (const key of RECORD_KEYS) {
    expect(schemaErrors(`Domain_${key}`, domain[key]), key).toEqual([]);
  }
}

describe.each(storeKinds)('domains API on %s', (kind) => {
  const api = useTestApi(kind, {
    domains: {
      returnPathTarget: 'bounces.mp.example.net',
      trackingTarget: 'track.mp.example.net',
      dkimSelector: 'sel1',
      // The library's default, which the test instances' TEST_DOMAINS lower for speed.
      dkimKeyBits: 2048,
    },
  });
  let sub: CreatedSubAccount;
  beforeEach(async () => {
    sub = await api.createSubAccount('sender');
  });

  const create = (name: unknown, key = sub.apiKey) =>
    api.call('POST', '/subaccount/domain', { sub: key, body: { name } });
  const names = async (query: Record<string, string | number> = {}, key = sub.apiKey) =>
    (await api.call('GET', '/subaccount/domain', { sub: key, query })).body.map((d: { name: string }) => d.name);

  it('creates, reads, lists and deletes a domain, each response matching the reference schema', async () => {
    const created = await create('Mail.Example.com');
    expect(created.status).toBe(200);
    expectDomainSchema(created.body);
    expect(created.text).toMatch(/"created":\d{19}[,}]/);
    const id = created.body.id;
    expect(created.body).toMatchObject({
      name: 'mail.example.com',
      spf: { host: 'mp-bounces.mail.example.com', type: 'CNAME', textValue: 'bounces.mp.example.net' },
      returnPath: { host: 'mp-bounces.mail.example.com', type: 'CNAME', textValue: 'bounces.mp.example.net' },
      track: { host: 'mp-track.mail.example.com', type: 'CNAME', textValue: 'track.mp.example.net' },
      dmarc: { host: '_dmarc.mail.example.com', type: 'TXT', textValue: 'v=DMARC1; p=none;' },
      dkimVerified: false,
      spfVerified: false,
      dmarcVerified: false,
      returnPathVerified: false,
      trackVerified: false,
      verified: false,
      dkimFailureReason: '',
      spfFailureReason: '',
      dmarcFailureReason: '',
      trackFailureReason: '',
      returnPathFailureReason: '',
      dnsProvider: '',
      domainRegisteredDate: '',
    });
    expect(created.body.dkim.host).toBe('sel1._domainkey.mail.example.com');
    expect(created.body.dkim.type).toBe('TXT');
    expect(created.body.dkim.textValue).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]+=*$/);
    for (const absent of ['gpt', 'gptVerified', 'mailboxVerified', 'dkimConfig'])
      expect(created.body).not.toHaveProperty(absent);

    const got = await api.call('GET', `/subaccount/domain/${id}/`, { sub: sub.apiKey });
    expect(got.status).toBe(200);
    expectDomainSchema(got.body);
    expect(got.body).toEqual(created.body);

    const list = await api.call('GET', '/subaccount/domain/', { sub: sub.apiKey });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([created.body]);
    for (const item of list.body) expectDomainSchema(item);

    const deleted = await api.call('DELETE', `/subaccount/domain/${id}`, { sub: sub.apiKey });
    expect(deleted.status).toBe(200);
    expect(schemaErrors('DeleteResponse', deleted.body)).toEqual([]);
    expect(deleted.body).toEqual({ id, message: 'Domain (mail.example.com) has been deleted successfully.' });
    expectError(await api.call('GET', `/subaccount/domain/${id}`, { sub: sub.apiKey }), 406, 'DOMAIN_NOT_FOUND');
    expectError(await api.call('DELETE', `/subaccount/domain/${id}`, { sub: sub.apiKey }), 406, 'DOMAIN_NOT_FOUND');
    expect(await names()).toEqual([]);
  });

  it('publishes the public half of an RSA-2048 key whose private half is stored only encrypted', async () => {
    const created = await create('example.com');
    const published = /p=([A-Za-z0-9+/=]+)$/.exec(created.body.dkim.textValue)![1]!;
    const context = contextOf(api.mailplane);
    const stored = (await context.store.domains.get(sub.id, created.body.id))!;
    expect(stored.dkimPrivateKeySealed).not.toContain('PRIVATE KEY');
    const privatePem = context.secrets.decrypt(stored.dkimPrivateKeySealed);
    const derived = createPublicKey(privatePem).export({ type: 'spki', format: 'der' }).toString('base64');
    expect(derived).toBe(published);
    const publicKey = createPublicKey({ key: Buffer.from(published, 'base64'), format: 'der', type: 'spki' });
    expect(publicKey.asymmetricKeyType).toBe('rsa');
    expect(publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    // the pair really belongs together: a signature with the stored key verifies with the published one
    const signature = createSign('sha256').update('dkim').sign(privatePem);
    expect(createVerify('sha256').update('dkim').verify(publicKey, signature)).toBe(true);
    // no response ever carries the private key or its ciphertext
    for (const text of [created.text, (await api.call('GET', '/subaccount/domain', { sub: sub.apiKey })).text]) {
      expect(text).not.toContain('PRIVATE');
      expect(text).not.toContain(stored.dkimPrivateKeySealed);
    }
    // every domain gets its own key
    const other = await create('example.org');
    expect(other.body.dkim.textValue).not.toBe(created.body.dkim.textValue);
  });

  it('normalises names: case, surrounding space, one trailing dot, Unicode to punycode', async () => {
    expect((await create('  EXAMPLE.com.  ')).body.name).toBe('example.com');
    const idn = await create('Пример.РФ');
    expect(idn.status).toBe(200);
    expectDomainSchema(idn.body);
    expect(idn.body).toMatchObject({
      name: 'xn--e1afmkfd.xn--p1ai',
      dmarc: { host: '_dmarc.xn--e1afmkfd.xn--p1ai' },
      dkim: { host: 'sel1._domainkey.xn--e1afmkfd.xn--p1ai' },
    });
    expect((await create('mail.bücher.de')).body.name).toBe('mail.xn--bcher-kva.de');
    // the same names in other spellings are duplicates
    for (const again of [
      'example.com',
      'Example.Com',
      'example.com.',
      'xn--e1afmkfd.xn--p1ai',
      'пример.рф.',
      'MAIL.BÜCHER.DE',
    ]) {
      expectError(await create(again), 403, 'DOMAIN_EXISTS');
    }
    expect(await names()).toEqual(['example.com', 'xn--e1afmkfd.xn--p1ai', 'mail.xn--bcher-kva.de']);
  });

  it('pages and searches case-insensitively, literally, and by Unicode label', async () => {
    for (const name of ['alpha.com', 'beta.com', 'mail.alpha.org', 'gamma.net', 'пример.рф']) await create(name);
    expect(await names({ limit: 2, offset: 1 })).toEqual(['beta.com', 'mail.alpha.org']);
    expect(await names({ search: 'ALPHA' })).toEqual(['alpha.com', 'mail.alpha.org']);
    expect(await names({ search: 'ha.c' })).toEqual(['alpha.com']);
    expect(await names({ search: '_' })).toEqual([]);
    expect(await names({ search: '%' })).toEqual([]);
    expect(await names({ search: 'пример' })).toEqual(['xn--e1afmkfd.xn--p1ai']);
    expect(await names({ search: '' })).toHaveLength(5);
    expect(await names({ offset: 5 })).toEqual([]);
  });

  it('lets another sub-account register the same name, and keeps each one’s domains invisible to the other', async () => {
    const mine = await create('shared.com');
    const other = await api.mailplane.createAccount({ name: 'other tenant' });
    const foreignKey = (await api.call('POST', '/account/subaccount', { account: other.apiKey, body: { name: 'x' } }))
      .body.apiKey;
    const sibling = (
      await api.call('POST', '/account/subaccount', { account: api.accountKey, body: { name: 'sibling' } })
    ).body.apiKey;
    for (const key of [foreignKey, sibling]) {
      expect(await names({}, key)).toEqual([]);
      expect(await names({ search: 'shared' }, key)).toEqual([]);
      expectError(await api.call('GET', `/subaccount/domain/${mine.body.id}`, { sub: key }), 406, 'DOMAIN_NOT_FOUND');
      expectError(
        await api.call('DELETE', `/subaccount/domain/${mine.body.id}`, { sub: key }),
        406,
        'DOMAIN_NOT_FOUND',
      );
      const theirs = await create('shared.com', key);
      expect(theirs.status).toBe(200);
      expect(theirs.body.id).not.toBe(mine.body.id);
    }
    const still = await api.call('GET', `/subaccount/domain/${mine.body.id}`, { sub: sub.apiKey });
    expect(still.body).toEqual(mine.body);
    expect(await names()).toEqual(['shared.com']);
  });

  it('lets exactly one of several concurrent creates of the same name succeed', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => create('race.com')));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) expectError(r, 403, 'DOMAIN_EXISTS');
    expect(await names()).toEqual(['race.com']);
  });

  describe('bad input', () => {
    it('answers 401 to no key, a wrong key and the account key on every endpoint', async () => {
      const { id } = (await create('keyed.com')).body;
      for (const [method, path, body] of [
        ['GET', '/subaccount/domain', undefined],
        ['POST', '/subaccount/domain', { name: 'new.com' }],
        ['GET', `/subaccount/domain/${id}`, undefined],
        ['DELETE', `/subaccount/domain/${id}`, undefined],
      ] as const) {
        await expectAuthBattery(api, method, path, 'sub', api.accountKey, { body });
      }
      expect(await names()).toEqual(['keyed.com']);
    });

    it('answers 422 to malformed bodies and names that are not domains, and stores nothing', async () => {
      const cases: Array<[string, { body?: unknown; raw?: string }]> = [
        ['malformed JSON', { raw: '{"name":' }],
        ['no body', { raw: '' }],
        ['JSON null', { raw: 'null' }],
        ['array body', { body: [] }],
        ['string body', { body: 'example.com' }],
        ['name missing', { body: {} }],
        ['name a number', { body: { name: 42 } }],
        ['name null', { body: { name: null } }],
        ['name an array', { body: { name: ['example.com'] } }],
        ['name an object', { body: { name: { value: 'example.com' } } }],
        ['name empty', { body: { name: '   ' } }],
        ['extra field', { body: { name: 'ok.com', verified: true } }],
        ['prototype key', { raw: '{"name":"ok.com","__proto__":{"verified":true}}' }],
        ['10,000-element array', { body: { name: Array.from({ length: 10_000 }, (_, i) => `d${i}.com`) } }],
        [
          '10,000 extra fields',
          { body: Object.fromEntries([['name', 'ok.com'], ...Array.from({ length: 10_000 }, (_, i) => [`f${i}`, i])]) },
        ],
        ['name of 100,000 characters', { body: { name: `${'a'.repeat(100_000)}.com` } }],
        [
          'name of 254 characters',
          { body: { name: `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.com` } },
        ],
        ['label of 64 characters', { body: { name: `${'a'.repeat(64)}.com` } }],
        ['single label', { body: { name: 'localhost' } }],
        ['one-character first label', { body: { name: 'x.com' } }],
        ['numeric TLD', { body: { name: 'example.123' } }],
        ['IPv4 address', { body: { name: '192.168.0.1' } }],
        ['leading hyphen', { body: { name: '-example.com' } }],
        ['trailing hyphen', { body: { name: 'example-.com' } }],
        ['empty label', { body: { name: 'example..com' } }],
        ['two trailing dots', { body: { name: 'example.com..' } }],
        ['leading dot', { body: { name: '.example.com' } }],
        ['underscore', { body: { name: 'my_site.com' } }],
        ['email address', { body: { name: 'user@example.com' } }],
        ['URL', { body: { name: 'https://example.com' } }],
        ['path after the name', { body: { name: 'example.com/evil' } }],
        ['query after the name', { body: { name: 'example.com?x' } }],
        ['port after the name', { body: { name: 'example.com:25' } }],
        ['percent-encoding', { body: { name: 'ex%61mple.com' } }],
        ['inner space', { body: { name: 'exa mple.com' } }],
        ['control character', { body: { name: 'example.com\u0000' } }],
        ['newline inside', { body: { name: 'example\n.com' } }],
        ['bad punycode', { body: { name: 'xn--zz.com' } }],
        ['emoji-only garbage', { body: { name: '\u{1F4A9}' } }],
      ];
      for (const [label, options] of cases) {
        const result = await api.call('POST', '/subaccount/domain', { sub: sub.apiKey, ...options });
        expect(result.status, label).toBe(422);
        expectError(result, 422);
      }
      expect(await names()).toEqual([]);
      // the longest legal name (253 characters) is accepted
      const longest = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
      expect(longest).toHaveLength(253);
      expect((await create(longest)).status).toBe(200);
    });

    it('names the field and the rule in a 422', async () => {
      const result = await create('not a domain');
      expectError(result, 422, 'VALIDATION_FAILED');
      expect(result.body.details[0].path).toBe('name');
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
        expectError(await api.call('GET', '/subaccount/domain', { sub: sub.apiKey, query: query as never }), 422);
      }
    });

    it('answers 406 to non-numeric, unknown and another tenant’s ids, and deletes nothing', async () => {
      const mine = await create('kept.com');
      const other = await api.mailplane.createAccount({ name: 'other' });
      const foreignKey = (await api.call('POST', '/account/subaccount', { account: other.apiKey, body: { name: 'f' } }))
        .body.apiKey;
      const foreign = await create('foreign.com', foreignKey);
      for (const id of ['abc', '0', '-1', '1.5', '99999', '1e3', '%20', '9007199254740993', String(foreign.body.id)]) {
        expectError(await api.call('GET', `/subaccount/domain/${id}`, { sub: sub.apiKey }), 406);
        expectError(await api.call('DELETE', `/subaccount/domain/${id}`, { sub: sub.apiKey }), 406);
      }
      expect(await names()).toEqual(['kept.com']);
      expect(await names({}, foreignKey)).toEqual(['foreign.com']);
      expect((await api.call('GET', `/subaccount/domain/${mine.body.id}`, { sub: sub.apiKey })).status).toBe(200);
    });

    it('answers 405 to methods the resource does not have and 413 to a body over the limit', async () => {
      expectError(
        await api.call('PUT', '/subaccount/domain/1', { sub: sub.apiKey, body: { name: 'x.com' } }),
        405,
        'METHOD_NOT_ALLOWED',
      );
      const huge = await api.call('POST', '/subaccount/domain', {
        sub: sub.apiKey,
        raw: JSON.stringify({ name: 'x'.repeat(9 * 1024 * 1024) }),
      });
      expectError(huge, 413, 'PAYLOAD_TOO_LARGE');
      expect(await names()).toEqual([]);
    });
  });
});
