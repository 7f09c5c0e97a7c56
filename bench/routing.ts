/**
 * Routing decisions per second of each strategy with a 50-entity pool (40 IPs, 10 TPSPs), against
 * a baseline of the same loop calling a pick that returns a constant entity. The aim is above
 * 1,000,000 decisions per second per strategy, so routing never shows in delivery profiles.
 */
import type { ParsedRoutingMetaData, RoutingEntity } from '../src/routing/metadata.js';
import { MAILBOX_PROVIDER_COUNT } from '../src/routing/providers.js';
import {
  createRoutingStrategy,
  EntityStatus,
  type Availability,
  type PickInput,
  type RoutingState,
  type RoutingStrategy,
} from '../src/routing/strategies.js';

/** One row of the table. */
export interface RoutingBenchRow {
  strategy: string;
  decisionsPerSecond: number;
  /** Time per decision relative to the baseline loop. */
  ratio: number;
}

const members: RoutingEntity[] = [
  ...Array.from({ length: 40 }, (_, i) => ({ kind: 'ip' as const, id: i + 1 })),
  ...Array.from({ length: 10 }, (_, i) => ({ kind: 'tpsp' as const, id: i + 1 })),
];
const slice = (from: number, to: number) => members.slice(from, to);
const domains = Array.from({ length: 20 }, (_, i) => `news${i}.example.com`);

// Each case sends a mix of recipients: all twelve providers, twenty listed sending domains and five unlisted ones.
const inputs: PickInput[] = Array.from({ length: 1000 }, (_, i) => ({
  provider: i % MAILBOX_PROVIDER_COUNT,
  fromDomain: i % 5 === 4 ? `other${i % 25}.example.org` : domains[i % domains.length]!,
}));
// One IP in ten is at its cap: the engine checks availability on every decision, as delivery will.
const availability: Availability = (entity) =>
  entity.kind === 'ip' && entity.id % 10 === 0 ? EntityStatus.AtCap : EntityStatus.Ready;
const withAvailability = inputs.map((input) => ({ ...input, availability }));

const metadata: Array<{ name: string; meta: ParsedRoutingMetaData }> = [
  { name: '0 round robin', meta: { strategy: 0 } },
  {
    name: '1 email provider',
    meta: {
      strategy: 1,
      providers: new Map(Array.from({ length: 11 }, (_, p) => [p, slice(p * 4, p * 4 + 4)] as const)),
      others: slice(44, 50),
    },
  },
  {
    name: '2 volume percentage',
    meta: { strategy: 2, weights: members.map((entity, i) => ({ entity, weight: 1 + ((i * 37) % 100) })) },
  },
  // Total weight above the precomputed-cycle limit: every slot is computed over the 50 entities.
  {
    name: '2 volume percentage, large weights',
    meta: { strategy: 2, weights: members.map((entity, i) => ({ entity, weight: 10_000 + i * 7919 })) },
  },
  {
    name: '3 sending domain',
    meta: {
      strategy: 3,
      domains: new Map(domains.map((d, i) => [d, slice(i * 2, i * 2 + 2)] as const)),
      others: slice(40, 50),
    },
  },
];

type Loop = (strategy: RoutingStrategy, cases: PickInput[], state: RoutingState, count: number) => number;

/**
 * A freshly compiled copy of the measuring loop: each case gets its own, so the call sites' type
 * feedback from one case (V8 inline caches) never slows down the next and the order of cases does not matter.
 */
function freshLoop(): Loop {
  return new Function(
    'strategy',
    'cases',
    'state',
    'count',
    `let checksum = 0;
     for (let i = 0; i < count; i++) {
       const picked = strategy.pick(cases[i % cases.length], state);
       checksum += picked.blocked === undefined ? picked.id : -1;
     }
     return checksum;`,
  ) as Loop;
}

function measure(strategy: RoutingStrategy, cases: PickInput[], windowMs: number): number {
  const loop = freshLoop();
  const state = strategy.newState();
  loop(strategy, cases, state, 200_000);
  let checksum = 0;
  let decisions = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    checksum += loop(strategy, cases, state, 100_000);
    decisions += 100_000;
    elapsed = performance.now() - start;
  } while (elapsed < windowMs);
  if (checksum === 0) throw new Error('no decision was made');
  return decisions / (elapsed / 1000);
}

/** Runs the routing benchmark, measuring each case for `windowMs` after a short warm-up. */
export function benchRouting(windowMs: number): RoutingBenchRow[] {
  const constant = members[0]!;
  const baseline: RoutingStrategy = {
    strategy: 0,
    members,
    newState: () => ({ clone: () => baseline.newState() }),
    pick: () => constant,
  };
  const cases: Array<{ name: string; strategy: RoutingStrategy; inputs: PickInput[] }> = [
    { name: 'baseline (constant pick)', strategy: baseline, inputs },
    ...metadata.map(({ name, meta }) => ({ name, strategy: createRoutingStrategy(members, meta), inputs })),
    ...metadata.map(({ name, meta }) => ({
      name: `${name}, 1 IP in 10 at cap`,
      strategy: createRoutingStrategy(members, meta),
      inputs: withAvailability,
    })),
  ];
  const measured = cases.map((c) => ({ name: c.name, perSecond: measure(c.strategy, c.inputs, windowMs) }));
  const base = measured[0]!.perSecond;
  return measured.map((m) => ({
    strategy: m.name,
    decisionsPerSecond: Math.round(m.perSecond),
    ratio: Number((base / m.perSecond).toFixed(2)),
  }));
}
