/**
 * Alert rules through the API (`/account/alert`, docs/reputation.md) on every database: the legacy
 * document's shapes, each entity kind checked against the caller's account, every bad input a 422
 * with its own code that writes nothing, and another account reading or changing nothing.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { useTestApi } from '../support/api.js';
import { expectAuthBattery, expectError } from '../support/bad-input.js';
import { storeKinds } from '../support/databases.js';

/** A rule as a legacy client sends it, with mailplane's window. */
const rule = {
  name: 'Hard bounces on Gmail',
  active: true,
  entityType: 'account',
  parameter: 0,
  threshold: '2.5',
  provider: '0',
  processedCountThreshold: 500,
  windowHours: 1,
  emails: ['ops@example.com', 'oncall@example.org'],
  slackUrl: 'https://hooks.slack.com/services/T000/B000/XXXX',
};

describe.each(storeKinds)('alert rules API on %s', (kind) => {
  const api = useTestApi(kind);
  let key: string;
  let accountId: number;
  beforeEach(async () => {
    key = api.accountKey;
    accountId = (await api.call('GET', '/account/subaccount', { account: key })).body[0].accountId;
  });

  const create = (body: Record<string, unknown>, account = key) =>
    api.call('POST', '/account/alert/', { account, body });
  const count = async (account = key) => (await api.call('GET', '/account/alert/count', { account })).body.count;

  it('creates, reads, lists, counts, updates and deletes a rule in the legacy shapes', async () => {
    const created = await create(rule);
    expect(created.status, created.text).toBe(200);
    const { success, ...alert } = created.body;
    expect(success).toBe(true);
    expect(alert).toEqual({
      ...rule,
      id: alert.id,
      entityValue: String(accountId),
      created: alert.created,
      updated: alert.created,
    });
    expect(created.text).toMatch(/"created":\d{19}[,}]/);

    const got = await api.call('GET', `/account/alert/${alert.id}`, { account: key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(alert);
    await create({ ...rule, name: 'Volume watch', parameter: 7, threshold: 100000, provider: 'all' });
    const listed = await api.call('GET', '/account/alert', { account: key, query: { limit: 1, offset: 0 } });
    expect(listed.body).toEqual([alert]);
    const searched = await api.call('GET', '/account/alert', { account: key, query: { search: 'VOLUME' } });
    expect(searched.body.map((a: { name: string }) => a.name)).toEqual(['Volume watch']);
    expect(await count()).toBe(2);
    expect((await api.call('GET', '/account/alert/count', { account: key, query: { search: 'gmail' } })).body).toEqual({
      count: 1,
    });

    // The legacy EAlert sends `active` as text; the other fields keep their values.
    const updated = await api.call('PUT', `/account/alert/${alert.id}`, {
      account: key,
      body: { active: 'false', threshold: 4, slackUrl: null },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toEqual({
      ...alert,
      active: false,
      threshold: '4',
      slackUrl: null,
      updated: updated.body.updated,
    });

    const deleted = await api.call('DELETE', `/account/alert/${alert.id}`, { account: key });
    expect(deleted.body).toEqual({
      id: alert.id,
      message: 'Alert (Hard bounces on Gmail) has been deleted successfully.',
    });
    expectError(await api.call('GET', `/account/alert/${alert.id}`, { account: key }), 406, 'ALERT_NOT_FOUND');
    expectError(await api.call('DELETE', `/account/alert/${alert.id}`, { account: key }), 406, 'ALERT_NOT_FOUND');
    expect(await count()).toBe(1);
  });

  it('fills the defaults: active, all providers, 24 hours, 100 processed, no notification', async () => {
    const created = await create({ name: 'Spam', entityType: 'account', parameter: 2, threshold: 0.1 });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({
      active: true,
      provider: 'all',
      windowHours: 24,
      processedCountThreshold: 100,
      emails: [],
      slackUrl: null,
      threshold: '0.1',
    });
  });

  it('watches a sub-account, an IP, an IP pool and a sending domain of the account, never of another', async () => {
    const sub = await api.createSubAccount('watched');
    const ip = (await api.call('PUT', '/account/ip/allocate', { account: key, body: { ips: ['10.29.0.1'] } })).body
      .allocated[0];
    const pool = (await api.call('POST', '/account/ippool', { account: key, body: { name: 'watched-pool' } })).body;
    const domain = (
      await api.call('POST', '/subaccount/domain', { sub: sub.apiKey, body: { name: 'watched.example' } })
    ).body;
    const mine = { subAccount: sub.id, ip: ip.id, ipPool: pool.id, domain: domain.id };
    for (const [entityType, id] of Object.entries(mine)) {
      const created = await create({ ...rule, entityType, entityValue: id });
      expect(created.status, `${entityType}: ${created.text}`).toBe(200);
      expect(created.body.entityValue).toBe(String(id));
    }

    const other = await api.mailplane.createAccount({ name: 'other' });
    const theirSub = await api.createSubAccount('theirs', other.apiKey);
    const theirIp = (
      await api.call('PUT', '/account/ip/allocate', { account: other.apiKey, body: { ips: ['10.29.0.2'] } })
    ).body.allocated[0];
    const theirPool = (
      await api.call('POST', '/account/ippool', { account: other.apiKey, body: { name: 'their-pool' } })
    ).body;
    const theirDomain = (
      await api.call('POST', '/subaccount/domain', { sub: theirSub.apiKey, body: { name: 'theirs.example' } })
    ).body;
    const theirs = {
      account: other.account.id,
      subAccount: theirSub.id,
      ip: theirIp.id,
      ipPool: theirPool.id,
      domain: theirDomain.id,
    };
    for (const [entityType, id] of Object.entries(theirs)) {
      const refused = await create({ ...rule, entityType, entityValue: id });
      expectError(refused, 422, 'ALERT_ENTITY_NOT_FOUND');
      expect(refused.body.details).toEqual([
        { path: 'entityValue', message: `names no ${entityType} of this account` },
      ]);
    }
    // Ids no table can hold, and an entity kind without its id, are refused the same way.
    expectError(await create({ ...rule, entityType: 'ip', entityValue: 2147483648 }), 422, 'ALERT_ENTITY_NOT_FOUND');
    expectError(await create({ ...rule, entityType: 'domain' }), 422, 'ALERT_ENTITY_NOT_FOUND');
    expect(await count()).toBe(4);
    expect(await count(other.apiKey)).toBe(0);
  });

  it('answers every bad rule with a 422 and its own code, storing nothing', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ parameter: 8 }, 'ALERT_PARAMETER_UNKNOWN'],
      [{ parameter: -1 }, 'ALERT_PARAMETER_UNKNOWN'],
      [{ entityType: 'mailbox' }, 'ALERT_ENTITY_TYPE_UNKNOWN'],
      [{ threshold: 100.5 }, 'ALERT_THRESHOLD_OUT_OF_RANGE'],
      [{ threshold: '-0.1' }, 'ALERT_THRESHOLD_OUT_OF_RANGE'],
      [{ parameter: 7, threshold: 10.5 }, 'ALERT_THRESHOLD_OUT_OF_RANGE'],
      [{ windowHours: 2 }, 'ALERT_WINDOW_NOT_OFFERED'],
      [{ windowHours: 720 }, 'ALERT_WINDOW_NOT_OFFERED'],
      [{ provider: '12' }, 'ALERT_PROVIDER_UNKNOWN'],
      [{ provider: 'gmail' }, 'ALERT_PROVIDER_UNKNOWN'],
      [{ slackUrl: 'http://127.0.0.1:8080/hook' }, 'ALERT_SLACK_URL_REFUSED'],
      [{ slackUrl: 'http://169.254.169.254/latest/meta-data' }, 'ALERT_SLACK_URL_REFUSED'],
      [{ slackUrl: 'https://localhost/hook' }, 'ALERT_SLACK_URL_REFUSED'],
      [{ slackUrl: 'https://user:pw@hooks.slack.com/x' }, 'ALERT_SLACK_URL_REFUSED'],
      [{ slackUrl: 'ftp://hooks.slack.com/x' }, 'ALERT_SLACK_URL_REFUSED'],
      [{ emails: ['not an address'] }, 'VALIDATION_FAILED'],
      [{ unknownField: 1 }, 'VALIDATION_FAILED'],
    ];
    for (const [change, code] of cases) {
      const refused = await create({ ...rule, ...change });
      expectError(refused, 422, code);
      expect(refused.body.message, JSON.stringify(change)).toMatch(/^the body is not valid/);
    }
    const { threshold: _t, ...withoutThreshold } = rule;
    // A field the rule cannot do without is missing: the schema's own 422.
    expectError(await create(withoutThreshold), 422, 'VALIDATION_FAILED');
    // Every problem is named, the first one's code answers.
    const several = await create({ ...rule, parameter: 9, windowHours: 3, provider: 99 });
    expectError(several, 422, 'ALERT_PARAMETER_UNKNOWN');
    expect(several.body.details.map((d: { path: string }) => d.path)).toEqual(['parameter', 'provider', 'windowHours']);
    expect(await count()).toBe(0);
  });

  it('checks the rule an update leaves as a whole, and writes none of a refused update', async () => {
    const created = (await create(rule)).body;
    const { success: _s, ...before } = created;
    const attempts: Array<[Record<string, unknown>, string]> = [
      // Volume counts messages: the stored 2.5 % cannot be its threshold.
      [{ name: 'renamed', parameter: 7 }, 'ALERT_THRESHOLD_OUT_OF_RANGE'],
      [{ name: 'renamed', windowHours: 48 }, 'ALERT_WINDOW_NOT_OFFERED'],
      [{ name: 'renamed', slackUrl: 'http://10.0.0.5/hook' }, 'ALERT_SLACK_URL_REFUSED'],
      [{ name: 'renamed', entityType: 'subAccount' }, 'ALERT_ENTITY_NOT_FOUND'],
      [{ name: 'renamed', entityType: 'ipPool', entityValue: 999999 }, 'ALERT_ENTITY_NOT_FOUND'],
    ];
    for (const [body, code] of attempts)
      expectError(await api.call('PUT', `/account/alert/${created.id}`, { account: key, body }), 422, code);
    expectError(await api.call('PUT', `/account/alert/${created.id}`, { account: key, body: {} }), 422);
    expect((await api.call('GET', `/account/alert/${created.id}`, { account: key })).body).toEqual(before);
    const moved = await api.call('PUT', `/account/alert/${created.id}`, {
      account: key,
      body: { parameter: 7, threshold: 5000 },
    });
    expect(moved.body).toMatchObject({ parameter: 7, threshold: '5000' });
    expectError(
      await api.call('PUT', '/account/alert/123456', { account: key, body: { name: 'x' } }),
      406,
      'ALERT_NOT_FOUND',
    );
  });

  it("lets no other account read, change, count or delete the account's rules", async () => {
    const created = (await create(rule)).body;
    const other = (await api.mailplane.createAccount({ name: 'intruder' })).apiKey;
    const path = `/account/alert/${created.id}`;
    expectError(await api.call('GET', path, { account: other }), 406, 'ALERT_NOT_FOUND');
    expectError(await api.call('PUT', path, { account: other, body: { active: false } }), 406, 'ALERT_NOT_FOUND');
    expectError(await api.call('DELETE', path, { account: other }), 406, 'ALERT_NOT_FOUND');
    expect((await api.call('GET', '/account/alert', { account: other })).body).toEqual([]);
    expect(await count(other)).toBe(0);
    const { success: _s, ...alert } = created;
    expect((await api.call('GET', path, { account: key })).body).toEqual(alert);
  });

  it('takes the account key only', async () => {
    const sub = await api.createSubAccount('keys');
    await expectAuthBattery(api, 'GET', '/account/alert', 'account', sub.apiKey);
    await expectAuthBattery(api, 'POST', '/account/alert', 'account', sub.apiKey, { body: rule });
    await expectAuthBattery(api, 'GET', '/account/alert/count', 'account', sub.apiKey);
    expect(await count()).toBe(0);
  });
});

describe.each(storeKinds)('alert rules with private targets allowed on %s', (kind) => {
  const api = useTestApi(kind, { webhooks: { allowPrivateTargets: true } });

  it('accepts a loopback Slack URL when webhooks.allowPrivateTargets is on', async () => {
    const created = await api.call('POST', '/account/alert', {
      account: api.accountKey,
      body: { ...rule, slackUrl: 'http://127.0.0.1:8080/hook' },
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body.slackUrl).toBe('http://127.0.0.1:8080/hook');
  });
});
