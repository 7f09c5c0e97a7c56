/**
 * The routing-strategy engine: one {@link RoutingStrategy} per `routingStrategy` value, built from
 * a pool's members and its parsed metadata. Pure and deterministic: the only thing a pick changes
 * is the {@link RoutingState} it is given, so the same strategy, state and inputs give the same entity.
 */
import { formatRoutingEntity, type ParsedRoutingMetaData, type RoutingEntity } from './metadata.js';
import { MailboxProvider, MAILBOX_PROVIDER_COUNT } from './providers.js';

/** Whether an entity can take a message now. */
export const EntityStatus = { Ready: 0, Paused: 1, AtCap: 2 } as const;
/** 0 = can send, 1 = cannot send (IP paused or gone), 2 = at its warmup cap for the provider today. */
export type EntityStatus = (typeof EntityStatus)[keyof typeof EntityStatus];

/** Says whether `entity` can send to `provider` now; called only for entities a strategy considers. */
export type Availability = (entity: RoutingEntity, provider: number) => EntityStatus;

/** What a pick looks at. */
export interface PickInput {
  /** The recipient's mailbox-provider id (0-11), see providers.ts. */
  provider: number;
  /** The sending (From) domain, lower-case without a trailing dot (`normalizeDomain`). */
  fromDomain: string;
  /** Omitted: every entity can send. */
  availability?: Availability | undefined;
}

/** Why no entity of the pool takes the message: none can send, or every one that could is at its cap. */
export type BlockedReason = 'unavailable' | 'at-capacity';
/** A pick that found no entity. */
export interface Blocked {
  blocked: BlockedReason;
}
/** The entity chosen, or why there is none. */
export type PickResult = RoutingEntity | Blocked;

const UNAVAILABLE: Blocked = Object.freeze({ blocked: 'unavailable' });
const AT_CAPACITY: Blocked = Object.freeze({ blocked: 'at-capacity' });

/** True when a pick found no entity. */
export function isBlocked(result: PickResult): result is Blocked {
  return (result as Blocked).blocked !== undefined;
}

/** The counters a strategy advances; create one with {@link RoutingStrategy.newState}. */
export interface RoutingState {
  /** An independent copy: picks on the copy replay exactly what picks on the original would do. */
  clone(): RoutingState;
}

/** A routing strategy of one pool. */
export interface RoutingStrategy {
  /** The `routingStrategy` value, 0-3. */
  readonly strategy: 0 | 1 | 2 | 3;
  /** The pool's members in routing order (IPs by id, then TPSPs by id). */
  readonly members: readonly RoutingEntity[];
  /** Fresh counters: the first pick of a fresh state is always the same. */
  newState(): RoutingState;
  /**
   * Chooses the entity for one message and advances `state`. Entities that cannot send are
   * skipped (their turn passes; a volume pick that finds nobody may pass several turns).
   */
  pick(input: PickInput, state: RoutingState): PickResult;
}

class Counters implements RoutingState {
  constructor(
    /** Round-robin position per group (strategies 0, 1 and 3). */
    readonly positions: Float64Array,
    /** Strategy 2: the slot reached in the current cycle, and per-entity counts when no cycle is precomputed. */
    public placed: number,
    readonly counts: Float64Array,
    /** Strategy 2: smooth-weighted-round-robin weights of the fallback used while an entity cannot send. */
    readonly current: Float64Array,
  ) {}

  clone(): Counters {
    return new Counters(this.positions.slice(), this.placed, this.counts.slice(), this.current.slice());
  }
}

/**
 * The next entity of `list` in round-robin order that can send, moving the position past it.
 * Skipping an entity that cannot send moves on to the next, so the others share its traffic evenly.
 */
function roundRobin(list: readonly RoutingEntity[], group: number, input: PickInput, state: Counters): PickResult {
  const size = list.length;
  if (size === 0) return UNAVAILABLE;
  const start = state.positions[group]!;
  const availability = input.availability;
  if (!availability) {
    state.positions[group] = start + 1 === size ? 0 : start + 1;
    return list[start]!;
  }
  let capped = false;
  for (let k = 0; k < size; k++) {
    const index = (start + k) % size;
    const status = availability(list[index]!, input.provider);
    if (status === EntityStatus.Ready) {
      state.positions[group] = index + 1 === size ? 0 : index + 1;
      return list[index]!;
    }
    if (status === EntityStatus.AtCap) capped = true;
  }
  return capped ? AT_CAPACITY : UNAVAILABLE;
}

/** Maps metadata entities onto the member objects (so callers may key availability by identity). */
function canonical(members: readonly RoutingEntity[]): (list: readonly RoutingEntity[]) => RoutingEntity[] {
  const byKey = new Map(members.map((m) => [formatRoutingEntity(m), m]));
  // A stored entity that is no longer a member is dropped: routing never sends from outside the pool.
  return (list) => list.flatMap((e) => byKey.get(formatRoutingEntity(e)) ?? []);
}

function newCounters(groups: number, weighted = 0): Counters {
  return new Counters(new Float64Array(groups), 0, new Float64Array(weighted), new Float64Array(weighted));
}

function roundRobinStrategy(members: readonly RoutingEntity[]): RoutingStrategy {
  return {
    strategy: 0,
    members,
    newState: () => newCounters(1),
    pick: (input, state) => roundRobin(members, 0, input, state as Counters),
  };
}

/**
 * Strategies 1 and 3 share this shape: a key chooses a group; `others` takes keys without a group;
 * without `others`, the whole pool in round robin (docs/ip-pools.md).
 */
function keyedStrategy(
  strategy: 1 | 3,
  members: readonly RoutingEntity[],
  groups: RoutingEntity[][],
  groupOf: (input: PickInput) => number,
): RoutingStrategy {
  return {
    strategy,
    members,
    newState: () => newCounters(groups.length),
    pick: (input, state) => {
      const group = groupOf(input);
      return roundRobin(groups[group]!, group, input, state as Counters);
    },
  };
}

function emailProviderStrategy(
  members: readonly RoutingEntity[],
  meta: Extract<ParsedRoutingMetaData, { strategy: 1 }>,
): RoutingStrategy {
  const toMembers = canonical(members);
  const groups: RoutingEntity[][] = [[...members]];
  const others = meta.others ? toMembers(meta.others) : [];
  let fallback = 0;
  if (others.length > 0) fallback = groups.push(others) - 1;
  // A table indexed by provider id: the pick is one array read, whatever the number of keys.
  const byProvider = new Int32Array(MAILBOX_PROVIDER_COUNT).fill(fallback);
  for (const [provider, list] of meta.providers) {
    const entities = toMembers(list);
    if (entities.length > 0) byProvider[provider] = groups.push(entities) - 1;
  }
  return keyedStrategy(1, members, groups, (input) => {
    const provider = input.provider;
    return provider >= 0 && provider < MAILBOX_PROVIDER_COUNT
      ? byProvider[provider]!
      : byProvider[MailboxProvider.Default]!;
  });
}

function sendingDomainStrategy(
  members: readonly RoutingEntity[],
  meta: Extract<ParsedRoutingMetaData, { strategy: 3 }>,
): RoutingStrategy {
  const toMembers = canonical(members);
  const groups: RoutingEntity[][] = [[...members]];
  const others = meta.others ? toMembers(meta.others) : [];
  const fallback = others.length > 0 ? groups.push(others) - 1 : 0;
  const byDomain = new Map<string, number>();
  for (const [domain, list] of meta.domains) {
    const entities = toMembers(list);
    if (entities.length > 0) byDomain.set(domain, groups.push(entities) - 1);
  }
  // Keys are lower-case and so is PickInput.fromDomain (routeMessage normalises it): one Map read.
  return keyedStrategy(3, members, groups, (input) => byDomain.get(input.fromDomain) ?? fallback);
}

/**
 * Strategy 2 places slot n+1 with the quota method of apportionment (Balinski and Young): among
 * the entities still below their upper quota ceil((n+1)·w/W), the one with the largest w/(count+1)
 * (ties to the earlier entity). Every prefix of n slots then gives each entity floor(n·w/W) or
 * ceil(n·w/W): as close to the proportions as integers allow, and exact at every multiple of W.
 * The sequence repeats every W slots, so when W is small enough one cycle is computed up front and
 * a pick is one array read.
 *
 * A slot whose entity cannot send is skipped (used up, as round robin skips), so the others share
 * its traffic in proportion and nobody builds up a debt paid back in a burst when it returns. After
 * {@link MAX_SKIPS_PER_ENTITY} skips per entity (a heavy entity down and a light one left), the pick
 * falls back to smooth weighted round robin (nginx's algorithm) over the entities that can send.
 */
function volumeStrategy(
  members: readonly RoutingEntity[],
  meta: Extract<ParsedRoutingMetaData, { strategy: 2 }>,
): RoutingStrategy {
  const toMembers = canonical(members);
  const entities: RoutingEntity[] = [];
  const weightList: number[] = [];
  for (const { entity, weight } of meta.weights) {
    const [member] = toMembers([entity]);
    if (member && weight > 0) {
      entities.push(member);
      weightList.push(weight);
    }
  }
  const weights = Float64Array.from(weightList);
  const size = weights.length;
  const total = weightList.reduce((a, b) => a + b, 0);

  /** The next slot's entity index by the quota method; advances the cycle in `state`. */
  const quotaStep = (state: Counters): number => {
    const counts = state.counts;
    const next = state.placed + 1;
    let best = -1;
    for (let i = 0; i < size; i++) {
      const w = weights[i]!;
      const c = counts[i]!;
      // Below the upper quota: c < next·w/W, kept in integers (c·W < next·w), exact below 2^53.
      if (c * total < next * w && (best < 0 || w * (counts[best]! + 1) > weights[best]! * (c + 1))) best = i;
    }
    counts[best]! += 1;
    // After W slots every entity has exactly its weight: the next cycle starts from zero.
    if (next === total) {
      state.placed = 0;
      counts.fill(0);
    } else {
      state.placed = next;
    }
    return best;
  };

  let cycle: Uint16Array | null = null;
  if (size > 0 && total <= MAX_CYCLE_SLOTS && total * size <= MAX_CYCLE_WORK) {
    const scratch = newCounters(0, size);
    cycle = new Uint16Array(total);
    for (let slot = 0; slot < total; slot++) cycle[slot] = quotaStep(scratch);
  }
  const nextSlot = (state: Counters): number => {
    if (!cycle) return quotaStep(state);
    const slot = state.placed;
    state.placed = slot + 1 === total ? 0 : slot + 1;
    return cycle[slot]!;
  };

  const smoothFallback = (provider: number, availability: Availability, state: Counters): PickResult => {
    let best = -1;
    let sum = 0;
    let capped = false;
    const current = state.current;
    for (let i = 0; i < size; i++) {
      const status = availability(entities[i]!, provider);
      if (status !== EntityStatus.Ready) {
        if (status === EntityStatus.AtCap) capped = true;
        continue;
      }
      current[i]! += weights[i]!;
      sum += weights[i]!;
      if (best < 0 || current[i]! > current[best]!) best = i;
    }
    if (best < 0) return capped ? AT_CAPACITY : UNAVAILABLE;
    current[best]! -= sum;
    return entities[best]!;
  };

  const maxSkips = Math.min(total, size * MAX_SKIPS_PER_ENTITY);
  return {
    strategy: 2,
    members,
    newState: () => newCounters(0, size),
    pick: (input, raw) => {
      if (size === 0) return UNAVAILABLE;
      const state = raw as Counters;
      const availability = input.availability;
      if (!availability) return entities[nextSlot(state)]!;
      for (let tries = 0; tries < maxSkips; tries++) {
        const entity = entities[nextSlot(state)]!;
        if (availability(entity, input.provider) === EntityStatus.Ready) return entity;
      }
      return smoothFallback(input.provider, availability, state);
    },
  };
}

/** Longest precomputed volume cycle (slots); larger total weights compute each slot in O(entities). */
const MAX_CYCLE_SLOTS = 65_536;
/** Most work spent precomputing a cycle (slots × entities), so building a pool stays under a few ms. */
const MAX_CYCLE_WORK = 4_000_000;
/** Skipped slots per weighted entity before a volume pick falls back to smooth weighted round robin. */
const MAX_SKIPS_PER_ENTITY = 2;

/**
 * Builds the strategy of a pool from its members (IPs by id, then TPSPs by id) and its parsed
 * metadata (`parseRoutingMetaData`). Entities the metadata names that are not members are ignored.
 *
 * @example
 * const strategy = createRoutingStrategy(members, parsed.value);
 * const state = strategy.newState();
 * const entity = strategy.pick({ provider: MailboxProvider.Gmail, fromDomain: 'example.com' }, state);
 */
export function createRoutingStrategy(
  members: readonly RoutingEntity[],
  metadata: ParsedRoutingMetaData,
): RoutingStrategy {
  switch (metadata.strategy) {
    case 0:
      return roundRobinStrategy(members);
    case 1:
      return emailProviderStrategy(members, metadata);
    case 2:
      return volumeStrategy(members, metadata);
    case 3:
      return sendingDomainStrategy(members, metadata);
  }
}
