import { beforeEach, describe, expect, it } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { ALL_MAIL } from 'mailplane';
import { useTestApi, type CreatedSubAccount } from '../support/api.js';
import { expectAuthBattery, expectError } from '../support/bad-input.js';
import { storeKinds } from '../support/databases.js';
import { schemaErrors } from '../support/openapi.js';

describe.each(storeKinds)('statistics API on %s', (kind) => {
  const api = useTestApi(kind);
  let sub: CreatedSubAccount;
  let other: CreatedSubAccount;
  beforeEach(async () => {
    sub = await api.createSubAccount('stats');
    other = await api.createSubAccount('other');
    const row = (subAccountId: number, day: string, group: string, counters: Record<string, number>) => ({
      accountId: sub.accountId,
      subAccountId,
      day,
      group,
      counters,
    });
    await contextOf(api.mailplane).store.stats.increment([
      row(sub.id, '2026-05-01', ALL_MAIL, {
        processed: 10,
        dropped: 2,
        smtpDropped: 1,
        delivered: 6,
        softBounced: 1,
        opened: 3,
        clicked: 2,
        spam: 1,
      }),
      row(sub.id, '2026-05-01', 'newsletter', { processed: 4, delivered: 4 }),
      row(sub.id, '2026-05-03', ALL_MAIL, { processed: 5, delivered: 5, unsubscribed: 1 }),
      row(other.id, '2026-05-01', ALL_MAIL, { processed: 100 }),
    ]);
  });

  it('returns one daily record per day, zeros included, with sent = processed - dropped - smtpDropped', async () => {
    const result = await api.call('GET', '/subaccount/stat', {
      sub: sub.apiKey,
      query: { from: '2026-05-01', to: '2026-05-04' },
    });
    expect(result.status).toBe(200);
    expect(result.body.map((d: { date: string }) => d.date)).toEqual([
      '2026-05-01',
      '2026-05-02',
      '2026-05-03',
      '2026-05-04',
    ]);
    for (const day of result.body) expect(schemaErrors('Stat', day)).toEqual([]);
    expect(result.body[0].stat).toEqual({
      processed: 10,
      sent: 7,
      delivered: 6,
      dropped: 2,
      smtpDropped: 1,
      hardBounced: 0,
      softBounced: 1,
      opened: 3,
      clicked: 2,
      unsubscribed: 0,
      spam: 1,
    });
    expect(result.body[1].stat.processed).toBe(0);
    const accountView = await api.call('GET', `/account/subaccount/stat/${sub.id}`, {
      account: api.accountKey,
      query: { from: '2026-05-01', to: '2026-05-04' },
    });
    expect(accountView.body).toEqual(result.body);
  });

  it('aggregates per sub-account, per group and per account', async () => {
    const range = { from: '2026-05-01', to: '2026-05-31' };
    const aggregate = await api.call('GET', '/subaccount/stat/aggregate', { sub: sub.apiKey, query: range });
    expect(schemaErrors('AggregateStat', aggregate.body)).toEqual([]);
    expect(aggregate.body).toMatchObject({ processed: 15, sent: 12, delivered: 11, unsubscribed: 1 });
    const viaAccount = await api.call('GET', `/account/subaccount/stat/${sub.id}/aggregate`, {
      account: api.accountKey,
      query: range,
    });
    expect(viaAccount.body).toEqual(aggregate.body);
    const group = await api.call('GET', `/account/subaccount/stat/${sub.id}/group`, {
      account: api.accountKey,
      query: { ...range, group: 'newsletter' },
    });
    expect(group.body).toMatchObject({ processed: 4, delivered: 4, sent: 4 });
    const account = await api.call('GET', '/account/stat/aggregate', { account: api.accountKey, query: range });
    expect(schemaErrors('AggregateStats', account.body)).toEqual([]);
    expect(account.body).toMatchObject({ processed: 115, spam: 1, spams: 1 });
    const accountDaily = await api.call('GET', '/account/stat', {
      account: api.accountKey,
      query: { from: '2026-05-01', to: '2026-05-01' },
    });
    expect(schemaErrors('AccountStats', accountDaily.body[0])).toEqual([]);
    expect(accountDaily.body[0].stat.processed).toBe(110);
    const accountGroup = await api.call('GET', '/account/stat/group', {
      account: api.accountKey,
      query: { from: '2026-05-01', to: '2026-05-02', group: 'newsletter' },
    });
    expect(accountGroup.body.map((d: { stat: { processed: number } }) => d.stat.processed)).toEqual([4, 0]);
    const accountGroupAggregate = await api.call('GET', '/account/stat/aggregate/group', {
      account: api.accountKey,
      query: { ...range, group: 'newsletter' },
    });
    expect(accountGroupAggregate.body.processed).toBe(4);
  });

  it('enforces 31 days for daily ranges and 366 for aggregates, both ends inclusive', async () => {
    expect(
      (await api.call('GET', '/subaccount/stat', { sub: sub.apiKey, query: { from: '2026-01-01', to: '2026-01-31' } }))
        .body,
    ).toHaveLength(31);
    expectError(
      await api.call('GET', '/subaccount/stat', { sub: sub.apiKey, query: { from: '2026-01-01', to: '2026-02-01' } }),
      422,
      'INVALID_DATE_RANGE',
    );
    expect(
      (
        await api.call('GET', '/subaccount/stat/aggregate', {
          sub: sub.apiKey,
          query: { from: '2024-01-01', to: '2024-12-31' },
        })
      ).status,
    ).toBe(200);
    expectError(
      await api.call('GET', '/subaccount/stat/aggregate', {
        sub: sub.apiKey,
        query: { from: '2024-01-01', to: '2025-01-01' },
      }),
      422,
      'INVALID_DATE_RANGE',
    );
  });

  it('answers bad dates, missing parameters and reversed ranges with 422', async () => {
    const queries: Array<Record<string, string>> = [
      {},
      { from: '2026-05-01' },
      { from: '2026-02-30', to: '2026-03-01' },
      { from: '2026/05/01', to: '2026-05-02' },
      { from: '2026-05-03', to: '2026-05-01' },
      { from: '2026-05-01', to: '2026-05-02', extra: '1' },
    ];
    for (const query of queries) {
      expectError(await api.call('GET', '/subaccount/stat', { sub: sub.apiKey, query }), 422);
      expectError(await api.call('GET', '/account/stat/aggregate', { account: api.accountKey, query }), 422);
    }
    expectError(
      await api.call('GET', '/account/stat/group', {
        account: api.accountKey,
        query: { from: '2026-05-01', to: '2026-05-02' },
      }),
      422,
    );
  });

  it('answers 401 to the wrong keys and 406 to unknown or foreign sub-account ids', async () => {
    const query = { from: '2026-05-01', to: '2026-05-02' };
    await expectAuthBattery(api, 'GET', '/subaccount/stat', 'sub', api.accountKey, { query });
    await expectAuthBattery(api, 'GET', '/account/stat', 'account', sub.apiKey, { query });
    const foreign = await api.mailplane.createAccount({ name: 'foreign' });
    for (const id of ['abc', '0', '99999', String(foreign.defaultSubAccount.id)]) {
      expectError(await api.call('GET', `/account/subaccount/stat/${id}`, { account: api.accountKey, query }), 406);
      expectError(
        await api.call('GET', `/account/subaccount/stat/${id}/aggregate`, { account: api.accountKey, query }),
        406,
      );
    }
    const foreignView = await api.call('GET', '/account/stat/aggregate', { account: foreign.apiKey, query });
    expect(foreignView.body.processed).toBe(0);
  });
});
