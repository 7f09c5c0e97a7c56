import { describe, expect, it } from 'vitest';
import { formatRoutingEntity, parseRoutingMetaData, type RoutingEntity } from '../../src/routing/metadata.js';
import { MailboxProvider as P } from '../../src/routing/providers.js';
import {
  createRoutingStrategy,
  EntityStatus,
  isBlocked,
  type Availability,
  type PickInput,
  type RoutingStrategy,
} from '../../src/routing/strategies.js';

const ip = (id: number): RoutingEntity => ({ kind: 'ip', id });
const tpsp = (id: number): RoutingEntity => ({ kind: 'tpsp', id });
const list = (...names: string[]) => JSON.stringify(names);

/** A strategy built exactly as the pool API stores it: wire metadata through parseRoutingMetaData. */
function strategyOf(strategy: number, metadata: unknown, members: RoutingEntity[]): RoutingStrategy {
  const parsed = parseRoutingMetaData(strategy, JSON.stringify(metadata), {
    ipIds: new Set(members.filter((m) => m.kind === 'ip').map((m) => m.id)),
    tpspIds: new Set(members.filter((m) => m.kind === 'tpsp').map((m) => m.id)),
  });
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  return createRoutingStrategy(members, parsed.value);
}

/** Names picked for `inputs` in order, from a fresh state. */
function run(strategy: RoutingStrategy, inputs: PickInput[]): string[] {
  const state = strategy.newState();
  return inputs.map((input) => {
    const picked = strategy.pick(input, state);
    return isBlocked(picked) ? `blocked:${picked.blocked}` : formatRoutingEntity(picked);
  });
}
const times = (n: number, input: PickInput): PickInput[] => Array.from({ length: n }, () => input);
const tally = (names: string[]) =>
  names.reduce<Record<string, number>>((acc, n) => ({ ...acc, [n]: (acc[n] ?? 0) + 1 }), {});
const gmail: PickInput = { provider: P.Gmail, fromDomain: 'example.com' };

describe('strategy 0, round robin', () => {
  const members = [ip(1), ip(2), tpsp(3)];
  const strategy = strategyOf(0, {}, members);

  it('shares mail evenly among all IPs and TPSPs, in a fixed order', () => {
    expect(run(strategy, times(6, gmail))).toEqual(['IP_1', 'IP_2', 'TPSP_3', 'IP_1', 'IP_2', 'TPSP_3']);
    expect(tally(run(strategy, times(3000, gmail)))).toEqual({ IP_1: 1000, IP_2: 1000, TPSP_3: 1000 });
  });

  it('skips entities that cannot send and shares their part among the others', () => {
    const availability: Availability = (e) => (e.id === 2 ? EntityStatus.Paused : EntityStatus.Ready);
    expect(tally(run(strategy, times(100, { ...gmail, availability })))).toEqual({ IP_1: 50, TPSP_3: 50 });
  });

  it('is blocked when nobody can send: at capacity if any member is capped, else unavailable', () => {
    expect(run(strategy, [{ ...gmail, availability: () => EntityStatus.Paused }])).toEqual(['blocked:unavailable']);
    const capped: Availability = (e) => (e.kind === 'ip' ? EntityStatus.AtCap : EntityStatus.Paused);
    expect(run(strategy, [{ ...gmail, availability: capped }])).toEqual(['blocked:at-capacity']);
    expect(run(createRoutingStrategy([], { strategy: 0 }), [gmail])).toEqual(['blocked:unavailable']);
  });

  it('is deterministic: a cloned state replays the same choices', () => {
    const state = strategy.newState();
    strategy.pick(gmail, state);
    const copy = state.clone();
    const a = [1, 2, 3, 4].map(() => strategy.pick(gmail, state));
    const b = [1, 2, 3, 4].map(() => strategy.pick(gmail, copy));
    expect(a).toEqual(b);
  });
});

describe('strategy 1, email provider', () => {
  const members = [ip(100), ip(102), ip(104), ip(105), tpsp(101), tpsp(103)];
  // The reference document's example.
  const metadata = { 0: list('IP_100', 'IP_105'), 1: list('TPSP_101'), others: list('IP_102', 'TPSP_103', 'IP_104') };
  const strategy = strategyOf(1, metadata, members);

  it('sends each keyed provider evenly through its own entities and the rest through others', () => {
    expect(run(strategy, times(4, gmail))).toEqual(['IP_100', 'IP_105', 'IP_100', 'IP_105']);
    expect(run(strategy, times(3, { provider: P.Yahoo, fromDomain: 'x.com' }))).toEqual([
      'TPSP_101',
      'TPSP_101',
      'TPSP_101',
    ]);
    const rest = [P.Aol, P.Microsoft, P.Zoho, P.Default].map((provider) => ({ provider, fromDomain: 'x.com' }));
    expect(run(strategy, [...rest, ...rest.slice(0, 2)])).toEqual([
      'IP_102',
      'TPSP_103',
      'IP_104',
      'IP_102',
      'TPSP_103',
      'IP_104',
    ]);
  });

  it('keeps a separate round robin per key', () => {
    const yahoo = { provider: P.Yahoo, fromDomain: 'x.com' };
    const ms = { provider: P.Microsoft, fromDomain: 'x.com' };
    expect(run(strategy, [gmail, ms, yahoo, gmail, ms, gmail])).toEqual([
      'IP_100',
      'IP_102',
      'TPSP_101',
      'IP_105',
      'TPSP_103',
      'IP_100',
    ]);
  });

  it('without others, unkeyed providers go round robin over the whole pool', () => {
    const only = strategyOf(1, { 11: list('TPSP_101') }, members);
    expect(run(only, times(6, gmail))).toEqual(['IP_100', 'IP_102', 'IP_104', 'IP_105', 'TPSP_101', 'TPSP_103']);
    expect(run(only, times(2, { provider: P.Default, fromDomain: 'x.com' }))).toEqual(['TPSP_101', 'TPSP_101']);
  });

  it('does not leave its key when the key entities cannot send: the pool is blocked for that provider', () => {
    const capped: Availability = (e, provider) =>
      provider === P.Gmail && e.kind === 'ip' ? EntityStatus.AtCap : EntityStatus.Ready;
    expect(run(strategy, [{ ...gmail, availability: capped }])).toEqual(['blocked:at-capacity']);
    expect(run(strategy, [{ provider: P.Aol, fromDomain: 'x.com', availability: capped }])).toEqual(['IP_102']);
  });
});

describe('strategy 2, volume percentage', () => {
  const members = [ip(100), ip(101), tpsp(102), tpsp(103)];
  const strategy = strategyOf(2, { IP_100: '2', IP_101: '3', TPSP_102: '1', TPSP_103: '4' }, members);

  it('gives weights 2, 3, 1 and 4 over 20 emails exactly 4, 6, 2 and 8', () => {
    expect(tally(run(strategy, times(20, gmail)))).toEqual({ IP_100: 4, IP_101: 6, TPSP_102: 2, TPSP_103: 8 });
  });

  it('keeps every prefix within quota: each count is floor or ceil of n·w/W', () => {
    const cases: Array<Record<string, string>> = [
      { IP_100: '2', IP_101: '3', TPSP_102: '1', TPSP_103: '4' },
      { IP_100: '1', IP_101: '1', TPSP_102: '1', TPSP_103: '97' },
      { IP_100: '7', IP_101: '5', TPSP_102: '3', TPSP_103: '0' },
      { IP_100: '999', IP_101: '1000', TPSP_102: '1', TPSP_103: '13' },
    ];
    for (const weights of cases) {
      const s = strategyOf(2, weights, members);
      const total = Object.values(weights).reduce((a, w) => a + Number(w), 0);
      const counts: Record<string, number> = {};
      const state = s.newState();
      for (let n = 1; n <= 2 * total + 17; n++) {
        const picked = s.pick(gmail, state);
        if (isBlocked(picked)) throw new Error('blocked');
        const name = formatRoutingEntity(picked);
        counts[name] = (counts[name] ?? 0) + 1;
        if (n === 2 * total) {
          expect(counts).toEqual(
            Object.fromEntries(
              Object.entries(weights)
                .filter(([, w]) => w !== '0')
                .map(([e, w]) => [e, 2 * Number(w)]),
            ),
          );
        }
        for (const [entity, w] of Object.entries(weights)) {
          const ideal = (n * Number(w)) / total;
          const count = counts[entity] ?? 0;
          if (count < Math.floor(ideal) || count > Math.ceil(ideal)) {
            throw new Error(`${JSON.stringify(weights)}: after ${n}, ${entity} has ${count}, ideal ${ideal}`);
          }
        }
      }
      // After two full cycles of W messages (and 17 more) every prefix was checked; at 2W the split was exact.
      expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(2 * total + 17);
    }
  });

  it('interleaves rather than sending runs: weights 1 and 1 alternate', () => {
    const even = strategyOf(2, { IP_100: '1', IP_101: '1' }, members);
    expect(run(even, times(4, gmail))).toEqual(['IP_100', 'IP_101', 'IP_100', 'IP_101']);
  });

  it('gives no traffic to members without a weight or with weight 0', () => {
    const s = strategyOf(2, { IP_100: '1', IP_101: '0' }, members);
    expect(tally(run(s, times(10, gmail)))).toEqual({ IP_100: 10 });
  });

  it('while an entity cannot send, shares in proportion among the others, and resumes without a burst', () => {
    const state = strategy.newState();
    const down: Availability = (e) => (e.kind === 'tpsp' && e.id === 103 ? EntityStatus.AtCap : EntityStatus.Ready);
    const count = (n: number, availability?: Availability) => {
      const counts: Record<string, number> = {};
      for (let i = 0; i < n; i++) {
        const picked = strategy.pick({ ...gmail, availability }, state);
        if (isBlocked(picked)) throw new Error('blocked');
        counts[formatRoutingEntity(picked)] = (counts[formatRoutingEntity(picked)] ?? 0) + 1;
      }
      return counts;
    };
    expect(count(600, down)).toEqual({ IP_100: 200, IP_101: 300, TPSP_102: 100 });
    // Back: its usual 40 % of the next 100, not a catch-up of the 400 it missed.
    const after = count(100);
    for (const [entity, share] of Object.entries({ IP_100: 20, IP_101: 30, TPSP_102: 10, TPSP_103: 40 })) {
      expect(Math.abs((after[entity] ?? 0) - share), entity).toBeLessThan(2);
    }
    expect(run(strategy, [{ ...gmail, availability: () => EntityStatus.Paused }])).toEqual(['blocked:unavailable']);
  });

  it('still finds a light entity when a heavy one is down (no endless skipping)', () => {
    const s = strategyOf(2, { IP_100: '1000', IP_101: '1' }, members);
    const down: Availability = (e) => (e.id === 100 ? EntityStatus.Paused : EntityStatus.Ready);
    expect(run(s, times(3, { ...gmail, availability: down }))).toEqual(['IP_101', 'IP_101', 'IP_101']);
  });

  it('computes slots on the fly for total weights too large to precompute, with the same guarantees', () => {
    const weights = { IP_100: '1000000', IP_101: '999999', TPSP_102: '3', TPSP_103: '7' };
    const s = strategyOf(2, weights, members);
    const state = s.newState();
    const counts: Record<string, number> = {};
    const total = 2_000_009;
    for (let n = 1; n <= 5000; n++) {
      const picked = s.pick(gmail, state);
      if (isBlocked(picked)) throw new Error('blocked');
      counts[formatRoutingEntity(picked)] = (counts[formatRoutingEntity(picked)] ?? 0) + 1;
      for (const [entity, w] of Object.entries(weights)) {
        const ideal = (n * Number(w)) / total;
        const c = counts[entity] ?? 0;
        if (c < Math.floor(ideal) || c > Math.ceil(ideal))
          throw new Error(`after ${n}, ${entity} has ${c}, ideal ${ideal}`);
      }
    }
    expect(counts.IP_100! + counts.IP_101!).toBeGreaterThan(4990);
  });
});

describe('strategy 3, sending domain', () => {
  const members = [ip(1), ip(2), tpsp(3)];
  const strategy = strategyOf(3, { 'news.example.com': list('IP_2'), others: list('IP_1', 'TPSP_3') }, members);

  it('sends a listed domain through its entities and the rest through others', () => {
    const news = { provider: P.Gmail, fromDomain: 'news.example.com' };
    const other = { provider: P.Gmail, fromDomain: 'shop.example.com' };
    expect(run(strategy, [news, other, news, other, other])).toEqual(['IP_2', 'IP_1', 'IP_2', 'TPSP_3', 'IP_1']);
  });

  it('matches the exact domain only: a sub-domain of a key goes to others', () => {
    expect(run(strategy, [{ provider: P.Gmail, fromDomain: 'mail.news.example.com' }])).toEqual(['IP_1']);
  });

  it('without others, unlisted domains go round robin over the whole pool', () => {
    const only = strategyOf(3, { 'news.example.com': list('IP_2') }, members);
    expect(run(only, times(3, { provider: P.Gmail, fromDomain: 'shop.example.com' }))).toEqual([
      'IP_1',
      'IP_2',
      'TPSP_3',
    ]);
  });
});
