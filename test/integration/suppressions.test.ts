import Database from 'better-sqlite3';
import { contextOf } from '../../src/instance-context.js';
import { manualClock, nowNs, systemClock } from 'mailplane';
import { beforeEach, describe, expect, it } from 'vitest';
import { useTestApi, type CallOptions } from '../support/api.js';
import { expectAuthBattery, expectError } from '../support/bad-input.js';
import { openTestStore, storeKinds } from '../support/databases.js';
import { schemaErrors } from '../support/openapi.js';

const PATH = '/subaccount/suppression';
const DAY_MS = 86_400_000;

describe.each(storeKinds)('suppressions API on %s', (kind) => {
  let clock: ReturnType<typeof manualClock>;
  const api = useTestApi(kind, () => {
    clock = manualClock(Date.UTC(2026, 0, 10, 12, 0, 0));
    return { clock };
  });
  let sub: string;
  beforeEach(async () => {
    sub = (await api.createSubAccount('Main')).apiKey;
  });

  const add = (body: unknown, key = sub) => api.call('POST', PATH, { sub: key, body });
  const list = (query: CallOptions['query'] = {}, key = sub) => api.call('GET', PATH, { sub: key, query });
  const remove = (emails: string[], key = sub) =>
    api.call('DELETE', PATH, { sub: key, body: { suppressions: emails.map((email) => ({ email })) } });
  const emailsOf = (result: { body: Array<{ email: string }> }) => result.body.map((s) => s.email);

  function expectSuppressions(result: { status: number; body: unknown }): void {
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    expect(Array.isArray(result.body)).toBe(true);
    for (const item of result.body as unknown[]) expect(schemaErrors('Suppression', item)).toEqual([]);
  }

  it('adds each type, lists, filters and deletes, every response matching the reference schema', async () => {
    const created = await add({
      hardBounce: [{ email: 'jackbarker@hooli.com' }, { email: 'BigHead@Hooli.com' }],
      manual: [{ email: 'russhanneman@gmail.com' }],
      unsubscribe: [{ email: 'jared@piedpiper.com' }],
      spamComplaint: [{ email: 'gilfoyle@piedpiper.com' }],
    });
    expectSuppressions(created);
    expect(created.body.map((s: { email: string; reason: number }) => [s.email, s.reason])).toEqual([
      ['jackbarker@hooli.com', 2],
      ['BigHead@Hooli.com', 2],
      ['gilfoyle@piedpiper.com', 3],
      ['jared@piedpiper.com', 1],
      ['russhanneman@gmail.com', 0],
    ]);
    expect(created.body[0]).toMatchObject({ smtp_error: '', created: expect.any(Number) });
    // nanosecond timestamps are written digit for digit: the clock's instant, in ns
    expect(created.text).toContain(`"created":${BigInt(Date.UTC(2026, 0, 10, 12)) * 1_000_000n}`);

    const all = await list();
    expectSuppressions(all);
    expect(all.body).toHaveLength(5);
    // one request's records get their ids in address order (see docs/suppressions.md)
    expect(emailsOf(await list({ type: 'hardBounce' }))).toEqual(['BigHead@Hooli.com', 'jackbarker@hooli.com']);
    expect(emailsOf(await list({ search: 'PIEDPIPER' }))).toEqual(['gilfoyle@piedpiper.com', 'jared@piedpiper.com']);
    expect(emailsOf(await list({ search: 'bighead', type: 'hardBounce' }))).toEqual(['BigHead@Hooli.com']);
    expect(emailsOf(await list({ limit: 2, offset: 1 }))).toEqual(['gilfoyle@piedpiper.com', 'jackbarker@hooli.com']);

    const deleted = await remove(['BIGHEAD@hooli.com', 'jared@piedpiper.com', 'never@added.com']);
    expect(deleted.status).toBe(200);
    expect(schemaErrors('deleteSuppression_200_response_inner', deleted.body)).toEqual([]);
    expect(deleted.body).toEqual({ message: '2 suppressions have been deleted successfully' });
    expect(emailsOf(await list())).toEqual([
      'gilfoyle@piedpiper.com',
      'jackbarker@hooli.com',
      'russhanneman@gmail.com',
    ]);
    const subAccount = await contextOf(api.mailplane).store.subAccounts.findByApiKeyHash(
      contextOf(api.mailplane).secrets.lookupHash(sub),
    );
    expect(
      await contextOf(api.mailplane).store.suppressions.isSuppressed(
        subAccount!.id,
        'jared@piedpiper.com',
        nowNs(systemClock),
      ),
    ).toBe(false);
  });

  it('adds idempotently: the same address again, in another case or type, keeps the first record', async () => {
    const [first] = (await add({ unsubscribe: [{ email: 'Dinesh@PiedPiper.com' }] })).body;
    clock.advance(DAY_MS);
    const again = await add({
      hardBounce: [{ email: 'dinesh@piedpiper.com' }],
      manual: [{ email: 'DINESH@piedpiper.com' }],
    });
    expectSuppressions(again);
    expect(again.body).toEqual([first]);
    expect(first).toMatchObject({ email: 'Dinesh@PiedPiper.com', reason: 1 });
    expect((await list()).body).toEqual([first]);
  });

  it('filters by created day, from and to both inclusive UTC days', async () => {
    clock.set(Date.UTC(2026, 0, 1, 0, 0, 0)); // first instant of Jan 1
    await add({ manual: [{ email: 'jan1@example.com' }] });
    clock.set(Date.UTC(2026, 0, 2, 23, 59, 59, 999)); // last millisecond of Jan 2
    await add({ manual: [{ email: 'jan2@example.com' }] });
    clock.set(Date.UTC(2026, 0, 3));
    await add({ manual: [{ email: 'jan3@example.com' }] });
    expect(emailsOf(await list({ from: '2026-01-01', to: '2026-01-01' }))).toEqual(['jan1@example.com']);
    expect(emailsOf(await list({ from: '2026-01-02', to: '2026-01-02' }))).toEqual(['jan2@example.com']);
    expect(emailsOf(await list({ from: '2026-01-02' }))).toEqual(['jan2@example.com', 'jan3@example.com']);
    expect(emailsOf(await list({ to: '2026-01-02' }))).toEqual(['jan1@example.com', 'jan2@example.com']);
    expect(emailsOf(await list({ from: '2025-12-01', to: '2025-12-31' }))).toEqual([]);
    // Days beyond what a nanosecond timestamp holds (found by the route fuzzer as 500s).
    expect(emailsOf(await list({ from: '1000-01-01', to: '9999-12-31' }))).toEqual([
      'jan1@example.com',
      'jan2@example.com',
      'jan3@example.com',
    ]);
    expect(emailsOf(await list({ from: '9999-12-31' }))).toEqual([]);
    expect(emailsOf(await list({ to: '1000-01-01' }))).toEqual([]);
  });

  it('accepts real-world addresses, keeping them as given', async () => {
    const emails = [
      "o'brien+news@example.co.uk",
      'first.last@sub.example-domain.com',
      '用户@例子.广告',
      'x@xn--80ak6aa92e.com',
    ];
    const created = await add({ manual: emails.map((email) => ({ email })) });
    expectSuppressions(created);
    expect(emailsOf(created)).toEqual(emails);
  });

  it('accepts 10,000 addresses in one request', async () => {
    const manual = Array.from({ length: 10_000 }, (_, i) => ({ email: `user${i}@example.com` }));
    const created = await add({ manual });
    expect(created.status).toBe(200);
    expect(created.body).toHaveLength(10_000);
    expect((await list({ search: 'user9999@' })).body).toHaveLength(1);
  });

  describe('tenant isolation', () => {
    it('another sub-account never sees, finds or deletes your suppressions', async () => {
      const mine = await add({ spamComplaint: [{ email: 'private@example.com' }] });
      const sibling = (await api.createSubAccount('Sibling')).apiKey;
      const stranger = (
        await api.createSubAccount('Stranger', (await api.mailplane.createAccount({ name: 'other' })).apiKey)
      ).apiKey;
      for (const key of [sibling, stranger]) {
        expect((await list({}, key)).body).toEqual([]);
        expect((await list({ search: 'private' }, key)).body).toEqual([]);
        expect((await list({ type: 'spamComplaint' }, key)).body).toEqual([]);
        const attempt = await remove(['private@example.com'], key);
        expect(attempt.body).toEqual({ message: '0 suppressions have been deleted successfully' });
      }
      // each tenant keeps its own record of the same address
      const theirs = await add({ manual: [{ email: 'PRIVATE@example.com' }] }, sibling);
      expect(theirs.body[0]).toMatchObject({ email: 'PRIVATE@example.com', reason: 0 });
      expect((await list()).body).toEqual(mine.body);
      await remove(['private@example.com'], sibling);
      expect((await list()).body).toEqual(mine.body);
    });
  });

  describe('bad input', () => {
    it('answers 401 to no key, a wrong key and the account key on every endpoint, and changes nothing', async () => {
      await add({ manual: [{ email: 'kept@example.com' }] });
      for (const [method, body] of [
        ['GET', undefined],
        ['POST', { manual: [{ email: 'intruder@example.com' }] }],
        ['DELETE', { suppressions: [{ email: 'kept@example.com' }] }],
      ] as const) {
        await expectAuthBattery(api, method, PATH, 'sub', api.accountKey, { body });
        await expectAuthBattery(api, method, `${PATH}/`, 'sub', api.accountKey, { body });
      }
      expect(emailsOf(await list())).toEqual(['kept@example.com']);
    });

    it('answers 422 to malformed, mistyped, incomplete, extra and oversized create bodies and adds nothing', async () => {
      const tooMany = Array.from({ length: 10_001 }, (_, i) => ({ email: `u${i}@example.com` }));
      const cases: Array<[string, { body?: unknown; raw?: string }]> = [
        ['malformed JSON', { raw: '{"manual":[' }],
        ['no body', { raw: '' }],
        ['array body', { body: [{ email: 'a@example.com' }] }],
        ['empty body', { body: {} }],
        ['only empty lists', { body: { manual: [], hardBounce: [] } }],
        ['unknown type key', { body: { softBounce: [{ email: 'a@example.com' }] } }],
        ['list not an array', { body: { manual: { email: 'a@example.com' } } }],
        ['entry a string', { body: { manual: ['a@example.com'] } }],
        ['entry without email', { body: { manual: [{}] } }],
        ['email a number', { body: { manual: [{ email: 42 }] } }],
        ['email null', { body: { manual: [{ email: null }] } }],
        ['extra entry field', { body: { manual: [{ email: 'a@example.com', type: 2 }] } }],
        ['no @', { body: { manual: [{ email: 'not-an-address' }] } }],
        ['empty local part', { body: { manual: [{ email: '@example.com' }] } }],
        ['one-label domain', { body: { manual: [{ email: 'a@localhost' }] } }],
        ['two @', { body: { manual: [{ email: 'a@b@example.com' }] } }],
        ['CRLF injection', { body: { manual: [{ email: 'a@example.com\r\nRCPT TO:<b@example.com>' }] } }],
        ['trailing newline', { body: { manual: [{ email: 'a@example.com\n' }] } }],
        ['space inside', { body: { manual: [{ email: 'a b@example.com' }] } }],
        ['NUL', { body: { manual: [{ email: 'a\u0000@example.com' }] } }],
        ['local part over 64', { body: { manual: [{ email: `${'a'.repeat(65)}@example.com` }] } }],
        [
          'address over 254',
          {
            body: {
              manual: [
                {
                  email: `a@${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(60)}.${'f'.repeat(60)}.com`,
                },
              ],
            },
          },
        ],
        ['megabyte address', { body: { manual: [{ email: `${'a'.repeat(1_000_000)}@example.com` }] } }],
        ['10,001 in one list', { body: { manual: tooMany } }],
        ['10,001 across lists', { body: { manual: tooMany.slice(0, 5_000), unsubscribe: tooMany.slice(5_000) } }],
        ['one bad among good', { body: { manual: [{ email: 'good@example.com' }, { email: 'bad' }] } }],
        ['IP literal', { body: { manual: [{ email: 'a@[127.0.0.1]' }] } }],
        ['numeric top-level label', { body: { manual: [{ email: 'a@127.0.0.1' }] } }],
        ['double dot', { body: { manual: [{ email: 'a..b@example.com' }] } }],
        ['hyphen-edged label', { body: { manual: [{ email: 'a@-example.com' }] } }],
      ];
      for (const [label, options] of cases) {
        const result = await api.call('POST', PATH, { sub, ...options });
        expect(result.status, label).toBe(422);
        expectError(result, 422);
        // a huge array is refused with one issue, not one per element
        if (label.startsWith('10,001')) expect(result.body.details, label).toHaveLength(1);
      }
      expect((await list()).body).toEqual([]);
      // the limits are limits, not off by one
      const edge = await add({ manual: [{ email: `${'a'.repeat(64)}@example.com` }] });
      expectSuppressions(edge);
    });

    it('answers 422 to bad delete bodies and deletes nothing', async () => {
      await add({ manual: [{ email: 'kept@example.com' }] });
      const cases: Array<[string, { body?: unknown; raw?: string }]> = [
        ['malformed JSON', { raw: '{"suppressions":' }],
        ['no body', { raw: '' }],
        ['reference array shape', { body: [{ email: 'kept@example.com' }] }],
        ['suppressions missing', { body: {} }],
        ['suppressions empty', { body: { suppressions: [] } }],
        ['suppressions a string', { body: { suppressions: 'kept@example.com' } }],
        ['entry a string', { body: { suppressions: ['kept@example.com'] } }],
        ['email a number', { body: { suppressions: [{ email: 1 }] } }],
        ['extra field', { body: { suppressions: [{ email: 'kept@example.com' }], all: true } }],
        ['extra entry field', { body: { suppressions: [{ email: 'kept@example.com', type: 'manual' }] } }],
        ['CRLF', { body: { suppressions: [{ email: 'kept@example.com\r\n' }] } }],
        ['over-long', { body: { suppressions: [{ email: `${'k'.repeat(400)}@example.com` }] } }],
        [
          '10,001 entries',
          { body: { suppressions: Array.from({ length: 10_001 }, () => ({ email: 'kept@example.com' })) } },
        ],
      ];
      for (const [label, options] of cases) {
        const result = await api.call('DELETE', PATH, { sub, ...options });
        expect(result.status, label).toBe(422);
        expectError(result, 422);
      }
      expect(emailsOf(await list())).toEqual(['kept@example.com']);
    });

    it('answers 422 to bad list parameters', async () => {
      for (const query of [
        { limit: 0 },
        { limit: -1 },
        { offset: -1 },
        { limit: 'ten' },
        { offset: '1e3' },
        { type: 'softBounce' },
        { type: '2' },
        { from: '2026-02-30' },
        { from: '2026-1-5' },
        { to: 'yesterday' },
        { from: '2026-01-10', to: '2026-01-09' },
        { search: 'x'.repeat(201) },
      ]) {
        expectError(await list(query as never), 422);
      }
    });

    it('answers 405 to a method the resource does not have', async () => {
      expectError(await api.call('PUT', PATH, { sub, body: {} }), 405, 'METHOD_NOT_ALLOWED');
    });
  });
});

describe('suppression lookups', () => {
  it('answer from the unique index, never a scan of the list', async () => {
    const { url, close } = await openTestStore('sqlite');
    try {
      const db = new Database(url.slice('sqlite:'.length), { readonly: true });
      const plan = (query: string, ...values: unknown[]) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${query}`).all(...values) as Array<{ detail: string }>)
          .map((row) => row.detail)
          .join('; ');
      const lookup = plan('select id from suppressions where sub_account_id = ? and email_key = ?', 1, 'a@example.com');
      const among = plan(
        'select email_key from suppressions where sub_account_id = ? and email_key in (?, ?)',
        1,
        'a@example.com',
        'b@example.com',
      );
      db.close();
      for (const detail of [lookup, among]) {
        // both columns come from the index: no scan of the sub-account's rows
        expect(detail).toMatch(
          /^SEARCH suppressions USING (COVERING )?INDEX \S+ \(sub_account_id=\? AND email_key=\?\)$/,
        );
      }
    } finally {
      await close();
    }
  });
});
