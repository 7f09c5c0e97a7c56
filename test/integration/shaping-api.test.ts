/**
 * The account API of traffic shaping: the rule tables (the built-in table with the configuration's
 * rules, and the account's own, replaced whole), what bad rules get (422 with a stable code, the
 * stored table unchanged), accounts kept apart, and the state view.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SHAPING_RULES } from '../../src/shaping/defaults.js';
import { contextOf } from '../../src/instance-context.js';
import { useTestApi } from '../support/api.js';
import { storeKinds } from '../support/databases.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the JSON shape
type Json = any;

describe.each(storeKinds)('the shaping API (%s)', (kind) => {
  const configured = { destination: 'domain:partner.example', source: '*', maxConnections: 3 };
  const api = useTestApi(kind, { shaping: { rules: [configured] } });
  const account = () => ({ account: api.accountKey });
  const rules = (body: unknown) => api.call('PUT', '/account/shaping/rule', { ...account(), body });

  async function allocate(address: string): Promise<Json> {
    const result = await api.call('PUT', '/account/ip/allocate', {
      ...account(),
      body: { ips: [address], autoWarmupEnabled: false },
    });
    expect(result.status, result.text).toBe(200);
    return result.body;
  }

  it('shows the default table and the configuration under the account rules, and replaces the latter whole', async () => {
    const first = await api.call('GET', '/account/shaping/rule', account());
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ defaults: [...DEFAULT_SHAPING_RULES, configured], rules: [] });
    const ip = await allocate('127.0.0.2');
    const table = [
      { destination: 'PROVIDER:Gmail', source: `ip:${ip.publicIp}`, messagesPerMinute: 120, maxConnections: 2 },
      { destination: 'mx:.outlook.com', source: '*', messagesPerHour: 5000 },
      { destination: '*', source: '*', idleTimeoutMs: 10_000 },
    ];
    const put = await rules({ rules: table });
    expect(put.status, put.text).toBe(200);
    // Stored as written, the destination's kind and name in lower case.
    expect(put.body.rules[0]).toEqual({ ...table[0], destination: 'provider:gmail' });
    expect((await api.call('GET', '/account/shaping/rule', account())).body.rules).toHaveLength(3);
    expect((await rules({ rules: [] })).body.rules).toEqual([]);
  });

  it.each<[string, unknown, string]>([
    ['a zero limit', [{ destination: 'provider:gmail', source: '*', messagesPerMinute: 0 }], 'INVALID_SHAPING_LIMIT'],
    ['a negative limit', [{ destination: '*', source: '*', maxConnections: -2 }], 'INVALID_SHAPING_LIMIT'],
    ['a fractional limit', [{ destination: '*', source: '*', messagesPerSecond: 1.5 }], 'INVALID_SHAPING_LIMIT'],
    ['an unknown provider', [{ destination: 'provider:hotmale', source: '*' }], 'UNKNOWN_PROVIDER'],
    ['a destination of no kind', [{ destination: 'gmail.com', source: '*' }], 'INVALID_SHAPING_RULE'],
    ['a source that is not an IP', [{ destination: '*', source: 'ip:mail.example.com' }], 'INVALID_SHAPING_RULE'],
    ['an unknown field', [{ destination: '*', source: '*', burst: 5 }], 'INVALID_SHAPING_RULE'],
    ['a rule that is not an object', ['provider:gmail'], 'INVALID_SHAPING_RULE'],
    ['an IP of no account', [{ destination: '*', source: 'ip:203.0.113.77' }], 'UNKNOWN_SHAPING_SOURCE'],
    ['a TPSP of no account', [{ destination: '*', source: 'tpsp:99999' }], 'UNKNOWN_SHAPING_SOURCE'],
  ])('refuses %s with 422 and keeps the stored table', async (_name, table, code) => {
    const kept = [{ destination: 'provider:yahoo', source: '*', messagesPerHour: 100 }];
    expect((await rules({ rules: kept })).status).toBe(200);
    const refused = await rules({ rules: [{ destination: 'provider:gmail', source: '*' }, ...(table as unknown[])] });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.code).toBe(code);
    expect(refused.body.message).toMatch(/^rules\[1\]: /);
    expect((await api.call('GET', '/account/shaping/rule', account())).body.rules).toEqual(kept);
  });

  it("keeps accounts apart: another account's IP is no source, and its rules and states are not shown", async () => {
    const other = await api.mailplane.createAccount({ name: 'other' });
    const theirs = await api.call('PUT', '/account/ip/allocate', {
      account: other.apiKey,
      body: { ips: ['127.0.0.5'], autoWarmupEnabled: false },
    });
    expect(theirs.status, theirs.text).toBe(200);
    const refused = await rules({ rules: [{ destination: '*', source: 'ip:127.0.0.5', maxConnections: 1 }] });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('UNKNOWN_SHAPING_SOURCE');
    const store = contextOf(api.mailplane).store;
    await store.shaping.replaceRules(other.account.id, [{ destination: 'provider:qq', source: '*' }], Date.now());
    await store.shaping.pushBack({
      key: `ip:${theirs.body.id}|provider:qq`,
      accountId: other.account.id,
      nowMs: Date.now(),
      action: 'suspend',
      untilMs: Date.now() + 60_000,
      minFactor: 0.1,
      gapMs: 0,
      reason: 'QQ_TEST',
      reply: '421',
    });
    expect((await api.call('GET', '/account/shaping/rule', account())).body.rules).toEqual([]);
    expect((await api.call('GET', '/account/shaping/state', account())).body).toEqual([]);
    const resume = await api.call('POST', '/account/shaping/state/resume', {
      ...account(),
      body: { key: `ip:${theirs.body.id}|provider:qq` },
    });
    expect(resume.status).toBe(406);
    expect((await api.call('GET', '/account/shaping/state', { account: other.apiKey })).body).toHaveLength(1);
  });

  it('refuses a state key with a control character in plain words (PostgreSQL cannot compare a NUL)', async () => {
    for (const key of ['ip:1|provider:\u0000', 'ip:1\n|provider:gmail', '']) {
      const refused = await api.call('POST', '/account/shaping/state/resume', { ...account(), body: { key } });
      expect(refused.status, refused.text).toBe(422);
      expect(refused.body.code).toBe('VALIDATION_FAILED');
      expect(refused.body.message).toMatch(/\(key: must /);
    }
  });

  it('shows a state with the limits in force at its factor', async () => {
    const store = contextOf(api.mailplane).store;
    const ip = await allocate('127.0.0.3');
    // The test account is the database's first.
    const id = 1;
    await rules({ rules: [{ destination: 'provider:gmail', source: '*', messagesPerMinute: 600, maxConnections: 4 }] });
    const key = `ip:${ip.id}|provider:gmail`;
    const slow = {
      key,
      accountId: id,
      action: 'slow-down' as const,
      minFactor: 1 / 16,
      gapMs: 0,
      reason: 'GMAIL_RATE_LIMITED',
    };
    await store.shaping.pushBack({ ...slow, nowMs: Date.now(), reply: '421-4.7.28 rate limited' });
    const [state] = (await api.call('GET', '/account/shaping/state', account())).body;
    expect(state).toMatchObject({
      key,
      source: `ip:${ip.id}`,
      destination: 'provider:gmail',
      factor: 0.5,
      ratePerMinute: 600,
      currentRatePerMinute: 300,
      maxConnections: 2,
      connectionsInUse: 0,
      suspendedUntil: null,
      reason: 'GMAIL_RATE_LIMITED',
      lastReply: '421-4.7.28 rate limited',
    });
  });
});
