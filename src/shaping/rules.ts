/**
 * Shaping rules: how fast and how wide one sending source (an IP, a TPSP, or the host's own address)
 * may deliver to one destination (a mailbox provider as the routing classifier names it, an MX host
 * suffix, a recipient domain, or everything else). A rule names a destination and a source (either may
 * be `*`) and some limits; the limits of one source × destination are the fields of every matching
 * rule, the more specific overriding the less, field by field, except that the three rate fields
 * are one rate: a rule that gives any of them replaces the inherited rate ({@link ShapingRuleSet}). Pure: the state the limits
 * are enforced with lives in the store (src/store/shaping-store.ts), the enforcement in service.ts.
 * docs/shaping.md describes the rules and the default table (defaults.ts).
 */
import { isIP } from 'node:net';
import { MAILBOX_PROVIDER_NAMES, type MailboxProvider } from '../routing/providers.js';
import type { ShapingLimits, ShapingRule } from '../store/shaping-store.js';

export type { ShapingLimits, ShapingRule };

/** The fields of {@link ShapingLimits}, in the order the API and the docs show them. */
export const SHAPING_LIMIT_FIELDS = [
  'maxConnections',
  'maxMessagesPerConnection',
  'messagesPerSecond',
  'messagesPerMinute',
  'messagesPerHour',
  'connectTimeoutMs',
  'idleTimeoutMs',
] as const satisfies readonly (keyof ShapingLimits)[];

/**
 * Provider names as rules write them, by provider id (`provider:gmail` is provider 0): the routing
 * classifier's display names in lower case, letters only (`Mail.ru` is `mailru`).
 */
export const PROVIDER_KEYS: readonly string[] = MAILBOX_PROVIDER_NAMES.map((name) =>
  name.toLowerCase().replace(/[^a-z]/g, ''),
);

/** A rule's destination, parsed. */
export type RuleDestination =
  | { kind: 'any' }
  | { kind: 'provider'; provider: MailboxProvider }
  | { kind: 'mx'; suffix: string }
  | { kind: 'domain'; domain: string };

/** A rule's source, parsed. */
export type RuleSource = { kind: 'any' } | { kind: 'ip'; address: string } | { kind: 'tpsp'; id: number };

/** Why a rule is not valid: a stable code and plain words (the API answers 422 with them). */
export interface RuleProblem {
  code: 'INVALID_SHAPING_RULE' | 'UNKNOWN_PROVIDER' | 'INVALID_SHAPING_LIMIT';
  message: string;
}

const HOST_LABELS = /^\.?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Parses a rule's destination, or says what is wrong with it. */
export function parseDestination(text: string): RuleDestination | RuleProblem {
  if (text === '*') return { kind: 'any' };
  const [written = '', ...rest] = text.split(':');
  const kind = written.trim().toLowerCase();
  const value = rest.join(':').trim().toLowerCase();
  if (kind === 'provider') {
    const provider = PROVIDER_KEYS.indexOf(value);
    if (provider === -1)
      return { code: 'UNKNOWN_PROVIDER', message: `unknown provider "${value}": one of ${PROVIDER_KEYS.join(', ')}` };
    return { kind: 'provider', provider: provider as MailboxProvider };
  }
  if ((kind === 'mx' || kind === 'domain') && value.length <= 253 && HOST_LABELS.test(value))
    return kind === 'mx' ? { kind: 'mx', suffix: value } : { kind: 'domain', domain: value.replace(/^\./, '') };
  return {
    code: 'INVALID_SHAPING_RULE',
    message: `destination "${text.slice(0, 100)}" is not "*", "provider:<name>", "mx:<host suffix>" or "domain:<domain>"`,
  };
}

/** Parses a rule's source, or says what is wrong with it. */
export function parseSource(text: string): RuleSource | RuleProblem {
  if (text === '*') return { kind: 'any' };
  const [kind, ...rest] = text.split(':');
  const value = rest.join(':').trim();
  if (kind === 'ip' && isIP(value) !== 0) return { kind: 'ip', address: value };
  if (kind === 'tpsp' && /^[1-9][0-9]{0,9}$/.test(value)) return { kind: 'tpsp', id: Number(value) };
  return {
    code: 'INVALID_SHAPING_RULE',
    message: `source "${text.slice(0, 100)}" is not "*", "ip:<address>" or "tpsp:<id>"`,
  };
}

/** Whether a parse answered a problem. */
export function isRuleProblem(value: object): value is RuleProblem {
  return 'code' in value;
}

/** The problems of one rule's limits: each must be a positive whole number (timeouts in ms, at most a day). */
export function limitProblems(rule: ShapingLimits): RuleProblem[] {
  const problems: RuleProblem[] = [];
  for (const field of SHAPING_LIMIT_FIELDS) {
    const value: unknown = rule[field];
    if (value === undefined) continue;
    const most = field.endsWith('TimeoutMs') ? 86_400_000 : 1_000_000_000;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > most)
      problems.push({
        code: 'INVALID_SHAPING_LIMIT',
        message: `${field} must be a whole number from 1 to ${most}; got ${JSON.stringify(value)?.slice(0, 40)}`,
      });
  }
  return problems;
}

/** One destination as delivery sees it: the recipient's domain, its provider, and its MX hosts when they were looked up. */
export interface Destination {
  domain: string;
  provider: MailboxProvider;
  mxHosts?: readonly string[];
}

/** One sending source as delivery sees it. */
export type Source =
  | { kind: 'ip'; id: number; address: string }
  | { kind: 'tpsp'; id: number }
  /** The host's own default address (the Shared pool without members). */
  | { kind: 'host' };

/** A rule, parsed, with the table it came from (later tables win at equal specificity). */
interface ParsedRule {
  destination: RuleDestination;
  source: RuleSource;
  limits: ShapingLimits;
  specificity: number;
  order: number;
}

const DESTINATION_WEIGHT = { any: 0, provider: 1, mx: 2, domain: 3 } as const;
const RATE_FIELDS = ['messagesPerSecond', 'messagesPerMinute', 'messagesPerHour'] as const;

/**
 * Rules ready to resolve, from several tables in increasing precedence (the defaults, the
 * configuration, an account's own). Invalid rules are skipped: tables are checked where they enter
 * (the options schema, the API).
 */
export class ShapingRuleSet {
  private readonly rules: ParsedRule[];

  constructor(tables: readonly (readonly ShapingRule[])[]) {
    const parsed: ParsedRule[] = [];
    for (const table of tables) {
      for (const rule of table) {
        const destination = parseDestination(rule.destination);
        const source = parseSource(rule.source);
        if (isRuleProblem(destination) || isRuleProblem(source)) continue;
        const limits: ShapingLimits = {};
        for (const field of SHAPING_LIMIT_FIELDS) if (rule[field] !== undefined) limits[field] = rule[field];
        const specificity = DESTINATION_WEIGHT[destination.kind] * 2 + (source.kind === 'any' ? 0 : 1);
        parsed.push({ destination, source, limits, specificity, order: parsed.length });
      }
    }
    // Least specific first, so merging in order lets the more specific (and the later table) win.
    this.rules = parsed.sort((a, b) => a.specificity - b.specificity || a.order - b.order);
  }

  /**
   * The limits of `source` to `destination`, and the key its state is kept under: the source, and
   * the most specific destination a matching rule names (a provider, an MX suffix, or the recipient
   * domain; everything else is kept per recipient domain).
   */
  resolve(source: Source, destination: Destination): ResolvedShaping {
    const limits: ShapingLimits = {};
    let scope = `domain:${destination.domain}`;
    let scopeWeight = 0;
    for (const rule of this.rules) {
      if (!sourceMatches(rule.source, source) || !destinationMatches(rule.destination, destination)) continue;
      // The three rate fields are one rate: a rule that gives any of them replaces the inherited rate.
      if (RATE_FIELDS.some((field) => rule.limits[field] !== undefined))
        for (const field of RATE_FIELDS) delete limits[field];
      Object.assign(limits, rule.limits);
      const weight = DESTINATION_WEIGHT[rule.destination.kind];
      if (weight > scopeWeight) {
        scopeWeight = weight;
        scope = destinationKey(rule.destination, destination);
      }
    }
    return { key: `${sourceKey(source)}|${scope}`, limits, intervalMs: intervalOf(limits) };
  }
}

/** What one source × destination may do, and where its state is kept. */
export interface ResolvedShaping {
  /** `<source>|<destination>`: `ip:7|provider:gmail`, `host|domain:example.com`. */
  key: string;
  limits: ShapingLimits;
  /** The smallest spacing between two messages at full speed (ms), or `null` when no rate applies. */
  intervalMs: number | null;
}

/** Whether a resolved rule asks anything of the store (a connection cap or a rate): if not, no round trip. */
export function isLimited(shaping: ResolvedShaping): boolean {
  return shaping.intervalMs !== null || shaping.limits.maxConnections !== undefined;
}

/** The smooth spacing that keeps every rate: one message per interval, never a window's allowance at once. */
function intervalOf(limits: ShapingLimits): number | null {
  const spacings = [
    limits.messagesPerSecond && 1000 / limits.messagesPerSecond,
    limits.messagesPerMinute && 60_000 / limits.messagesPerMinute,
    limits.messagesPerHour && 3_600_000 / limits.messagesPerHour,
  ].filter((spacing): spacing is number => typeof spacing === 'number');
  return spacings.length === 0 ? null : Math.max(...spacings);
}

function sourceKey(source: Source): string {
  return source.kind === 'host' ? 'host' : `${source.kind}:${source.id}`;
}

function sourceMatches(rule: RuleSource, source: Source): boolean {
  if (rule.kind === 'any') return true;
  if (rule.kind === 'ip') return source.kind === 'ip' && source.address === rule.address;
  return source.kind === 'tpsp' && source.id === rule.id;
}

function destinationMatches(rule: RuleDestination, destination: Destination): boolean {
  switch (rule.kind) {
    case 'any':
      return true;
    case 'provider':
      return destination.provider === rule.provider;
    case 'domain':
      return destination.domain === rule.domain;
    case 'mx':
      return (destination.mxHosts ?? []).some((host) => hostHasSuffix(host, rule.suffix));
  }
}

function destinationKey(rule: RuleDestination, destination: Destination): string {
  switch (rule.kind) {
    case 'provider':
      return `provider:${PROVIDER_KEYS[rule.provider] ?? rule.provider}`;
    case 'mx':
      return `mx:${rule.suffix}`;
    default:
      return `domain:${destination.domain}`;
  }
}

/** `mx1.google.com` has the suffix `google.com` and `.google.com`; `evilgoogle.com` has neither. */
function hostHasSuffix(host: string, suffix: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  const bare = suffix.replace(/^\./, '');
  return name === bare || name.endsWith(`.${bare}`);
}
