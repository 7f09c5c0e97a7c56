import { describe, expect, it } from 'vitest';
import {
  IpPoolType,
  IpState,
  type IpPoolDetail,
  type IpRecord,
  type TpspRecord,
} from '../../src/store/ip-pool-store.js';
import { resolveOverflow, resolveSendingPool, type PoolAvailability } from '../../src/routing/overflow.js';
import { MailboxProvider as P } from '../../src/routing/providers.js';
import { createRoutingTable, ipStatus, routeMessage, selectPool } from '../../src/routing/router.js';
import { EntityStatus, type Availability } from '../../src/routing/strategies.js';

const link = (status: PoolAvailability['status'], overflowPoolId: number | null = null): PoolAvailability => ({
  status,
  shouldOverflow: overflowPoolId !== null,
  overflowPoolId,
});

describe('resolveSendingPool', () => {
  it('sends from the selected pool when it can take the message', () => {
    expect(
      resolveSendingPool(
        1,
        new Map([
          [1, link('ready', 2)],
          [2, link('ready')],
        ]),
      ),
    ).toEqual({ ok: true, poolId: 1, tried: [1] });
  });

  it('follows the chain past unavailable and full pools', () => {
    const pools = new Map([
      [1, link('at-capacity', 2)],
      [2, link('unavailable', 3)],
      [3, link('ready')],
    ]);
    expect(resolveSendingPool(1, pools)).toEqual({ ok: true, poolId: 3, tried: [1, 2, 3] });
  });

  it('waits, with the last pool and its reason, when the chain ends', () => {
    expect(
      resolveSendingPool(
        1,
        new Map([
          [1, link('at-capacity', 2)],
          [2, link('at-capacity')],
        ]),
      ),
    ).toEqual({
      ok: false,
      wait: { reason: 'at-capacity', poolId: 2, end: 'no-overflow', tried: [1, 2] },
    });
    const off = new Map<number, PoolAvailability>([
      [1, { status: 'unavailable', shouldOverflow: false, overflowPoolId: 2 }],
      [2, link('ready')],
    ]);
    expect(resolveSendingPool(1, off)).toMatchObject({
      ok: false,
      wait: { reason: 'unavailable', end: 'no-overflow', tried: [1] },
    });
    expect(resolveSendingPool(1, new Map([[1, link('unavailable', 9)]]))).toMatchObject({
      ok: false,
      wait: { end: 'missing-pool' },
    });
  });

  it('never loops, whatever the stored links say', () => {
    const cycle = new Map([
      [1, link('at-capacity', 2)],
      [2, link('at-capacity', 3)],
      [3, link('unavailable', 1)],
    ]);
    expect(resolveSendingPool(1, cycle)).toEqual({
      ok: false,
      wait: { reason: 'unavailable', poolId: 3, end: 'cycle', tried: [1, 2, 3] },
    });
    expect(resolveSendingPool(5, new Map([[5, link('at-capacity', 5)]]))).toMatchObject({
      ok: false,
      wait: { end: 'cycle', tried: [5] },
    });
  });

  it('tries each pool once', () => {
    const calls: number[] = [];
    const result = resolveOverflow(
      1,
      () => ({ shouldOverflow: true, overflowPoolId: 1 }),
      (id) => {
        calls.push(id);
        return { blocked: 'unavailable' as const };
      },
    );
    expect(result.ok).toBe(false);
    expect(calls).toEqual([1]);
  });
});

const T0 = 1_700_000_000_000_000_000n;
function ipRecord(id: number, address: string, state: IpRecord['state'] = IpState.Active): IpRecord {
  return {
    id,
    accountId: 1,
    publicIp: address,
    reverseDnsHostname: '',
    type: 1,
    state,
    autoWarmupEnabled: state === IpState.Warming,
    warmupStartedAt: 0n,
    created: T0,
    updated: T0,
  };
}
function tpspRecord(id: number): TpspRecord {
  return {
    id,
    accountId: 1,
    name: `t${id}`,
    kind: 3,
    host: 'smtp.example.net',
    port: 587,
    security: 'starttls',
    username: '',
    passwordSealed: '',
    created: T0,
    updated: T0,
  };
}
function pool(
  id: number,
  name: string,
  over: Partial<IpPoolDetail['pool']>,
  ips: IpRecord[] = [],
  tpsps: TpspRecord[] = [],
): IpPoolDetail {
  return {
    pool: {
      id,
      accountId: 1,
      name,
      type: IpPoolType.Dedicated,
      routingStrategy: 0,
      routingMetaData: '{}',
      shouldOverflow: false,
      overflowPoolId: null,
      warmupInterval: 24,
      created: T0,
      updated: T0,
      ...over,
    },
    overflowPoolName: '',
    ips,
    tpsps,
  };
}

describe('routeMessage', () => {
  const warming = ipRecord(1, '192.0.2.1', IpState.Warming);
  const details = [
    pool(1, 'Shared', { type: IpPoolType.Shared }),
    pool(2, 'Warmup', { shouldOverflow: true, overflowPoolId: 3 }, [warming]),
    pool(
      3,
      'Transactional',
      { routingStrategy: 2, routingMetaData: JSON.stringify({ IP_2: '3', TPSP_7: '1' }) },
      [ipRecord(2, '192.0.2.2')],
      [tpspRecord(7)],
    ),
    pool(4, 'Empty', {}),
  ];
  const gmail = { provider: P.Gmail, fromDomain: 'Example.com' };

  it('selects the pool by request name, else the sub-account default, else the system pool', () => {
    const table = createRoutingTable(details);
    expect(selectPool(table, { poolName: 'transactional' })).toEqual({ ok: true, poolId: 3 });
    expect(selectPool(table, { poolName: 'nope', subAccountDefaultPoolId: 3 })).toEqual({
      ok: false,
      unknownPool: 'nope',
    });
    expect(selectPool(table, { poolName: '', subAccountDefaultPoolId: 2 })).toEqual({ ok: true, poolId: 2 });
    expect(selectPool(table, { subAccountDefaultPoolId: 99 })).toEqual({ ok: true, poolId: 1 });
    expect(selectPool(table, {})).toEqual({ ok: true, poolId: 1 });
  });

  it('sends an empty system pool from the host default address, and names the IP and address otherwise', () => {
    const table = createRoutingTable(details);
    expect(routeMessage(table, gmail)).toMatchObject({
      ok: true,
      pool: { id: 1, name: 'Shared' },
      entity: { kind: 'host' },
      overflowed: false,
    });
    const picks = Array.from({ length: 4 }, () => routeMessage(table, { ...gmail, poolName: 'Transactional' }));
    expect(picks.map((d) => (d.ok ? d.entity : null))).toEqual([
      { kind: 'ip', id: 2, address: '192.0.2.2' },
      { kind: 'ip', id: 2, address: '192.0.2.2' },
      { kind: 'ip', id: 2, address: '192.0.2.2' },
      { kind: 'tpsp', id: 7 },
    ]);
    expect(routeMessage(table, { ...gmail, poolName: 'Missing' })).toEqual({ ok: false, unknownPool: 'Missing' });
  });

  it('overflows a warming IP at its cap for one provider, and only for that provider', () => {
    const table = createRoutingTable(details);
    const sentToday = new Map<number, number>([
      [P.Gmail, 50],
      [P.Yahoo, 3],
    ]);
    const availability: Availability = (e, provider) =>
      e.kind === 'ip' && e.id === 1 ? ipStatus(IpState.Warming, 50, sentToday.get(provider) ?? 0) : EntityStatus.Ready;
    const toGmail = routeMessage(table, { ...gmail, poolName: 'Warmup', availability });
    expect(toGmail).toMatchObject({ ok: true, pool: { id: 3 }, overflowed: true, tried: [2, 3] });
    const toYahoo = routeMessage(table, {
      provider: P.Yahoo,
      fromDomain: 'example.com',
      poolName: 'Warmup',
      availability,
    });
    expect(toYahoo).toMatchObject({
      ok: true,
      pool: { id: 2 },
      entity: { kind: 'ip', id: 1, address: '192.0.2.1' },
      overflowed: false,
    });
  });

  it('waits when the pool cannot send and does not overflow', () => {
    const table = createRoutingTable(details);
    expect(routeMessage(table, { ...gmail, poolName: 'Empty' })).toEqual({
      ok: false,
      wait: { reason: 'unavailable', poolId: 4, end: 'no-overflow', tried: [4] },
    });
    const paused: Availability = (e) => (e.kind === 'ip' ? ipStatus(IpState.Paused, Infinity, 0) : EntityStatus.Ready);
    const decision = routeMessage(table, {
      ...gmail,
      poolName: 'Warmup',
      availability: (e, p) => (e.kind === 'tpsp' ? EntityStatus.Paused : paused(e, p)),
    });
    expect(decision).toEqual({
      ok: false,
      wait: { reason: 'unavailable', poolId: 3, end: 'no-overflow', tried: [2, 3] },
    });
  });

  it('keeps the counters of unchanged pools across reloads and restarts those of changed ones', () => {
    const table = createRoutingTable(details);
    const next = (t: ReturnType<typeof createRoutingTable>) => {
      const d = routeMessage(t, { ...gmail, poolName: 'Transactional' });
      return d.ok ? d.entity.kind : 'none';
    };
    expect([next(table), next(table), next(table)]).toEqual(['ip', 'ip', 'ip']);
    const same = createRoutingTable(details, table);
    expect(next(same)).toBe('tpsp');
    const changed = createRoutingTable(
      details.map((d) =>
        d.pool.id === 3
          ? { ...d, pool: { ...d.pool, routingMetaData: JSON.stringify({ IP_2: '3', TPSP_7: '2' }) } }
          : d,
      ),
      same,
    );
    expect(next(changed)).toBe('ip');
  });

  it('falls back to round robin when stored metadata no longer parses, and reports it', () => {
    const broken = [
      details[0]!,
      pool(
        5,
        'Broken',
        { routingStrategy: 2, routingMetaData: '{"IP_9":"1"}' },
        [ipRecord(2, '192.0.2.2')],
        [tpspRecord(7)],
      ),
    ];
    const table = createRoutingTable(broken);
    expect(table.pools.get(5)!.metadataProblems.length).toBeGreaterThan(0);
    const kinds = [1, 2]
      .map(() => routeMessage(table, { ...gmail, poolName: 'broken' }))
      .map((d) => (d.ok ? d.entity.kind : 'none'));
    expect(kinds).toEqual(['ip', 'tpsp']);
  });
});
