/**
 * Parsing and validation of a pool's `routingMetaData`: a JSON object serialised into a string,
 * whose shape depends on the routing strategy. Pure: the caller says which IPs and TPSPs are in the
 * pool, and gets back either the typed form the routing engine works with or the list of problems.
 */

/** Values of `routingStrategy`. */
export const RoutingStrategy = { RoundRobin: 0, EmailProvider: 1, VolumePercentage: 2, SendingDomain: 3 } as const;
/** 0 = Round Robin, 1 = Email Provider, 2 = Volume Percentage, 3 = Sending Domain. */
export type RoutingStrategy = (typeof RoutingStrategy)[keyof typeof RoutingStrategy];

/** Mailbox-provider ids of strategy 1; 11 is the default provider. */
export const MAILBOX_PROVIDER_IDS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] as const;

/** An IP or TPSP a pool routes mail to; written `IP_<id>` or `TPSP_<id>` on the wire. */
export interface RoutingEntity {
  kind: 'ip' | 'tpsp';
  id: number;
}

/** The members of a pool: which entities metadata may name. */
export interface PoolMembers {
  ipIds: ReadonlySet<number>;
  tpspIds: ReadonlySet<number>;
}

/** Strategy 1: entities per mailbox-provider id; `others` takes providers without a key. */
export interface EmailProviderRouting {
  strategy: 1;
  providers: ReadonlyMap<number, readonly RoutingEntity[]>;
  others: readonly RoutingEntity[] | null;
}

/** Strategy 2: traffic split in proportion to the weights (at least one is positive). */
export interface VolumeRouting {
  strategy: 2;
  weights: ReadonlyArray<{ entity: RoutingEntity; weight: number }>;
}

/** Strategy 3: entities per sending domain (lower-case); `others` takes domains without a key. */
export interface SendingDomainRouting {
  strategy: 3;
  domains: ReadonlyMap<string, readonly RoutingEntity[]>;
  others: readonly RoutingEntity[] | null;
}

/** The typed form of valid routing metadata. */
export type ParsedRoutingMetaData = { strategy: 0 } | EmailProviderRouting | VolumeRouting | SendingDomainRouting;

/** The result of {@link parseRoutingMetaData}. */
export type RoutingMetaDataResult = { ok: true; value: ParsedRoutingMetaData } | { ok: false; problems: string[] };

/** Longest metadata string accepted (characters). */
export const MAX_ROUTING_METADATA_LENGTH = 65_536;
/** Most keys in one metadata object, and most entities in one list. */
export const MAX_ROUTING_KEYS = 1000;
/** Largest weight of strategy 2: large enough for any proportion, small enough to sum safely. */
export const MAX_ROUTING_WEIGHT = 1_000_000;

const ENTITY = /^(IP|TPSP)_([1-9][0-9]{0,15})$/;
const WHOLE_NUMBER = /^(0|[1-9][0-9]{0,9})$/;
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The wire form of an entity, `IP_<id>` or `TPSP_<id>`. */
export function formatRoutingEntity(entity: RoutingEntity): string {
  return `${entity.kind === 'ip' ? 'IP' : 'TPSP'}_${entity.id}`;
}

/** Parses `IP_<id>` / `TPSP_<id>`, or `null` when `text` is neither. */
export function parseRoutingEntity(text: string): RoutingEntity | null {
  const match = ENTITY.exec(text);
  if (!match) return null;
  const id = Number(match[2]);
  if (!Number.isSafeInteger(id)) return null;
  return { kind: match[1] === 'IP' ? 'ip' : 'tpsp', id };
}

/** True when `entity` is one of the pool's members. */
export function isPoolMember(entity: RoutingEntity, members: PoolMembers): boolean {
  return entity.kind === 'ip' ? members.ipIds.has(entity.id) : members.tpspIds.has(entity.id);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An entity string that names a member, or a problem. */
function memberEntity(text: unknown, where: string, members: PoolMembers, problems: string[]): RoutingEntity | null {
  if (typeof text !== 'string') {
    problems.push(`${where}: an entity must be a string like "IP_12" or "TPSP_3"`);
    return null;
  }
  const entity = parseRoutingEntity(text);
  if (!entity) {
    problems.push(`${where}: "${text.slice(0, 40)}" is not an entity like "IP_12" or "TPSP_3"`);
    return null;
  }
  if (!isPoolMember(entity, members)) {
    problems.push(`${where}: ${text} is not in this pool`);
    return null;
  }
  return entity;
}

/** A value holding a JSON array of member entities (strategies 1 and 3). */
function entityList(value: unknown, key: string, members: PoolMembers, problems: string[]): RoutingEntity[] | null {
  if (typeof value !== 'string') {
    problems.push(`"${key}": the value must be a string holding a JSON array of entities, e.g. "[\\"IP_1\\"]"`);
    return null;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    problems.push(`"${key}": the value is not JSON`);
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length === 0) {
    problems.push(`"${key}": the value must hold a non-empty JSON array of entities`);
    return null;
  }
  if (parsed.length > MAX_ROUTING_KEYS) {
    problems.push(`"${key}": at most ${MAX_ROUTING_KEYS} entities`);
    return null;
  }
  const before = problems.length;
  const entities: RoutingEntity[] = [];
  const seen = new Set<string>();
  parsed.forEach((item, index) => {
    const entity = memberEntity(item, `"${key}"[${index}]`, members, problems);
    if (!entity) return;
    const text = formatRoutingEntity(entity);
    if (seen.has(text)) problems.push(`"${key}": ${text} is listed twice`);
    seen.add(text);
    entities.push(entity);
  });
  return problems.length === before ? entities : null;
}

function parseEmailProvider(
  object: Record<string, unknown>,
  members: PoolMembers,
  problems: string[],
): EmailProviderRouting {
  const providers = new Map<number, RoutingEntity[]>();
  let others: RoutingEntity[] | null = null;
  for (const [key, value] of Object.entries(object)) {
    const isProvider = /^(0|[1-9][0-9]?)$/.test(key) && Number(key) <= 11;
    if (key !== 'others' && !isProvider) {
      problems.push(`"${key.slice(0, 40)}": keys are mailbox-provider ids "0" to "11" or "others"`);
      continue;
    }
    const list = entityList(value, key, members, problems);
    if (!list) continue;
    if (key === 'others') others = list;
    else providers.set(Number(key), list);
  }
  return { strategy: 1, providers, others };
}

function parseVolume(object: Record<string, unknown>, members: PoolMembers, problems: string[]): VolumeRouting {
  const weights: Array<{ entity: RoutingEntity; weight: number }> = [];
  for (const [key, value] of Object.entries(object)) {
    const entity = memberEntity(key, `"${key.slice(0, 40)}"`, members, problems);
    if (typeof value !== 'string' || !WHOLE_NUMBER.test(value) || Number(value) > MAX_ROUTING_WEIGHT) {
      problems.push(
        `"${key.slice(0, 40)}": the weight must be a string holding a whole number from 0 to ${MAX_ROUTING_WEIGHT}, e.g. "25"`,
      );
      continue;
    }
    // Keys are unique after parsing, and the entity pattern has one spelling per entity.
    if (entity) weights.push({ entity, weight: Number(value) });
  }
  if (problems.length === 0 && !weights.some((w) => w.weight > 0)) problems.push('at least one weight must be above 0');
  return { strategy: 2, weights };
}

function parseSendingDomain(
  object: Record<string, unknown>,
  members: PoolMembers,
  problems: string[],
): SendingDomainRouting {
  const domains = new Map<string, RoutingEntity[]>();
  let others: RoutingEntity[] | null = null;
  for (const [key, value] of Object.entries(object)) {
    const domain = key.toLowerCase();
    if (key !== 'others' && !DOMAIN.test(domain)) {
      problems.push(`"${key.slice(0, 40)}": keys are sending domain names (e.g. "mail.example.com") or "others"`);
      continue;
    }
    if (key !== 'others' && domains.has(domain)) {
      problems.push(`"${key}": the domain is listed twice (domain names are case-insensitive)`);
      continue;
    }
    const list = entityList(value, key, members, problems);
    if (!list) continue;
    if (key === 'others') others = list;
    else domains.set(domain, list);
  }
  return { strategy: 3, domains, others };
}

/**
 * Validates `raw` as the routing metadata of `strategy` for a pool with `members`, and returns its
 * typed form. Strategy 0 takes `{}`; the others need at least one key, and every entity they name
 * must be a member of the pool.
 *
 * @example
 * parseRoutingMetaData(2, '{"IP_1":"3","TPSP_2":"1"}', { ipIds: new Set([1]), tpspIds: new Set([2]) });
 * // { ok: true, value: { strategy: 2, weights: [{ entity: { kind: 'ip', id: 1 }, weight: 3 }, ...] } }
 */
export function parseRoutingMetaData(strategy: number, raw: string, members: PoolMembers): RoutingMetaDataResult {
  if (raw.length > MAX_ROUTING_METADATA_LENGTH) {
    return { ok: false, problems: [`routingMetaData is longer than ${MAX_ROUTING_METADATA_LENGTH} characters`] };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return {
      ok: false,
      problems: ['routingMetaData is not JSON; it must be a JSON object serialised into a string, e.g. "{}"'],
    };
  }
  if (!isPlainObject(parsed)) return { ok: false, problems: ['routingMetaData must hold a JSON object'] };
  const keys = Object.keys(parsed);
  if (strategy === 0) {
    return keys.length === 0
      ? { ok: true, value: { strategy: 0 } }
      : { ok: false, problems: ['round robin (strategy 0) takes "{}"'] };
  }
  if (keys.length === 0)
    return { ok: false, problems: [`routing strategy ${strategy} needs at least one key in routingMetaData`] };
  if (keys.length > MAX_ROUTING_KEYS)
    return { ok: false, problems: [`routingMetaData has more than ${MAX_ROUTING_KEYS} keys`] };
  const problems: string[] = [];
  let value: ParsedRoutingMetaData;
  if (strategy === 1) value = parseEmailProvider(parsed, members, problems);
  else if (strategy === 2) value = parseVolume(parsed, members, problems);
  else if (strategy === 3) value = parseSendingDomain(parsed, members, problems);
  else return { ok: false, problems: [`unknown routing strategy ${strategy}; use 0, 1, 2 or 3`] };
  return problems.length === 0 ? { ok: true, value } : { ok: false, problems: problems.slice(0, 20) };
}
