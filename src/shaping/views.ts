/**
 * The account API's side of traffic shaping: the rule tables (the built-in table with the
 * configuration's rules, and the account's own, which the account replaces whole), and the state of
 * each source × destination with the limits in force. Routes: src/http/routes/shaping.ts.
 */
import { z } from 'zod';
import { NotFoundError, ValidationError, type FieldIssue } from '../errors.js';
import type { MailplaneStore, ShapingStateRecord } from '../store/index.js';
import { classifyByDomain, MailboxProvider } from '../routing/providers.js';
import { checkShapingRules } from './rule-check.js';
import { PROVIDER_KEYS, type Destination, type ShapingRule, type Source } from './rules.js';
import { CONNECTIONS_SUFFIX, type TrafficShaping } from './service.js';

/** What the views work with. */
export interface ShapingViewDeps {
  readonly store: MailplaneStore;
  readonly shaping: TrafficShaping;
  readonly nowMs: number;
}

/** The limit fields of a rule on the wire: all optional whole numbers. */
const limit = z.int().optional();

/** A rule on the wire. */
export const shapingRuleWireSchema = z.object({
  destination: z.string(),
  source: z.string(),
  maxConnections: limit,
  maxMessagesPerConnection: limit,
  messagesPerSecond: limit,
  messagesPerMinute: limit,
  messagesPerHour: limit,
  connectTimeoutMs: limit,
  idleTimeoutMs: limit,
});

/** `GET/PUT /account/shaping/rule`: the tables in force, least precedence first. */
export const shapingRulesWireSchema = z.object({
  /** The built-in table and the configuration's rules (read-only here). */
  defaults: z.array(shapingRuleWireSchema),
  /** The account's own rules, over the defaults. */
  rules: z.array(shapingRuleWireSchema),
});

/** One source × destination on the wire. */
export const shapingStateWireSchema = z.object({
  key: z.string(),
  source: z.string(),
  destination: z.string(),
  /** The share of the rule's rate and connections in force (1: full; less after slow-downs). */
  factor: z.number(),
  /** The rule's rate as messages per minute, and the rate in force now (`null`: no rate). */
  ratePerMinute: z.number().nullable(),
  currentRatePerMinute: z.number().nullable(),
  /** Connections open now over every node (messages in flight where no rule caps them), and the most allowed now (`null`: no cap). */
  connectionsInUse: z.int(),
  maxConnections: z.int().nullable(),
  /** Messages waiting for a booked slot of the rate. */
  slotsBookedAhead: z.int(),
  suspendedUntil: z.number().nullable(),
  reason: z.string().nullable(),
  lastReply: z.string().nullable(),
  lastReplyAt: z.number().nullable(),
  updatedAt: z.number(),
});

type RulesWire = z.infer<typeof shapingRulesWireSchema>;
type StateWire = z.infer<typeof shapingStateWireSchema>;

/** The rule tables an account's mail is shaped by. */
export async function shapingRulesView(deps: ShapingViewDeps, accountId: number): Promise<RulesWire> {
  return { defaults: [...deps.shaping.baseRules()], rules: await deps.store.shaping.rules(accountId) };
}

/**
 * Replaces the account's own rules. Every rule is checked, and every `ip:` or `tpsp:` source must be
 * one of the account's; one bad rule refuses the table (422) and leaves the stored one as it was.
 */
export async function replaceShapingRules(
  deps: ShapingViewDeps,
  accountId: number,
  value: unknown,
): Promise<RulesWire> {
  const checked = checkShapingRules(value);
  if (!checked.ok) {
    const first = checked.problems[0]!;
    throw new ValidationError(`rules[${first.index}]: ${first.message}`, issuesOf(checked.problems), first.code);
  }
  const unknown = await unknownSources(deps.store, accountId, checked.rules);
  if (unknown.length > 0) {
    const message = `rules[${unknown[0]!.index}]: the source "${unknown[0]!.source}" is not an IP or TPSP of this account`;
    throw new ValidationError(
      message,
      unknown.map(({ index, source }) => ({ path: `rules.${index}.source`, message: `unknown source ${source}` })),
      'UNKNOWN_SHAPING_SOURCE',
    );
  }
  await deps.store.shaping.replaceRules(accountId, checked.rules, deps.nowMs);
  deps.shaping.forget(accountId);
  return shapingRulesView(deps, accountId);
}

function issuesOf(problems: readonly { index: number; message: string }[]): FieldIssue[] {
  return problems.map(({ index, message }) => ({ path: index < 0 ? 'rules' : `rules.${index}`, message }));
}

/** The rules whose source names an IP or TPSP the account does not have. */
async function unknownSources(store: MailplaneStore, accountId: number, rules: readonly ShapingRule[]) {
  const addresses = rules.filter((r) => r.source.startsWith('ip:')).map((r) => r.source.slice(3).trim());
  const known = new Set((await store.ips.findByAddresses(accountId, addresses)).map((ip) => ip.publicIp));
  const unknown: { index: number; source: string }[] = [];
  for (const [index, rule] of rules.entries()) {
    if (rule.source.startsWith('ip:') && !known.has(rule.source.slice(3).trim()))
      unknown.push({ index, source: rule.source });
    if (rule.source.startsWith('tpsp:') && !(await store.tpsps.get(accountId, Number(rule.source.slice(5)))))
      unknown.push({ index, source: rule.source });
  }
  return unknown;
}

/** The state of the account's sources, most recently active first, with the limits in force. */
export async function shapingStatesView(deps: ShapingViewDeps, accountId: number, limit: number): Promise<StateWire[]> {
  const states = await deps.store.shaping.states(accountId, deps.nowMs, 2 * limit);
  // A key's open connections are counted under `<key>#connections` (TrafficShaping.connectionGate).
  const open = new Map(
    states
      .filter((s) => s.key.endsWith(CONNECTIONS_SUFFIX))
      .map((s) => [s.key.slice(0, -CONNECTIONS_SUFFIX.length), s]),
  );
  const views: StateWire[] = [];
  for (const state of states.filter((s) => !s.key.endsWith(CONNECTIONS_SUFFIX)).slice(0, limit))
    views.push(await stateView(deps, accountId, state, open.get(state.key)?.inFlight));
  return views;
}

/**
 * Lifts a suspension and restores the full rate of one source × destination of the account (406 when
 * unknown); the incident of its blocklist pause, if one is open, is resolved by the operator.
 */
export async function resumeShaping(deps: ShapingViewDeps, accountId: number, key: string): Promise<StateWire> {
  if (!(await deps.store.shaping.resume(accountId, key)))
    throw new NotFoundError('SHAPING_STATE_NOT_FOUND', `no shaping state "${key.slice(0, 200)}" in this account`);
  await deps.shaping.resumed(accountId, key);
  const states = await deps.store.shaping.states(accountId, deps.nowMs, 10_000);
  const state = states.find((s) => s.key === key);
  const open = states.find((s) => s.key === `${key}${CONNECTIONS_SUFFIX}`)?.inFlight;
  if (!state)
    throw new NotFoundError('SHAPING_STATE_NOT_FOUND', `no shaping state "${key.slice(0, 200)}" in this account`);
  return stateView(deps, accountId, state, open);
}

/** One state on the wire; `openConnections` is its count of open connections, when its rule caps them. */
async function stateView(
  deps: ShapingViewDeps,
  accountId: number,
  state: ShapingStateRecord,
  openConnections: number | undefined,
): Promise<StateWire> {
  const [sourceText = '', destinationText = ''] = state.key.split('|');
  const source = await sourceOfKey(deps.store, accountId, sourceText);
  const resolved = await deps.shaping.resolve(accountId, source, destinationOfKey(destinationText));
  // Rounded to a thousandth: 15 a second shows as 900 a minute, not 900.0000000000001.
  const perMinute = (spacingMs: number) => Math.round((60_000_000 / spacingMs) * 1) / 1000;
  const ratePerMinute = resolved.intervalMs === null ? null : perMinute(resolved.intervalMs);
  const max = resolved.limits.maxConnections;
  const spacing = resolved.intervalMs === null ? null : resolved.intervalMs / state.factor;
  return {
    key: state.key,
    source: sourceText,
    destination: destinationText,
    factor: state.factor,
    ratePerMinute,
    currentRatePerMinute: resolved.intervalMs === null ? null : perMinute(resolved.intervalMs / state.factor),
    connectionsInUse: openConnections ?? state.inFlight,
    maxConnections: max === undefined ? null : Math.max(1, Math.floor(max * state.factor)),
    slotsBookedAhead: spacing === null ? 0 : Math.max(0, Math.ceil((state.nextSlotAt - deps.nowMs) / spacing)),
    suspendedUntil: state.suspendedUntil !== null && state.suspendedUntil > deps.nowMs ? state.suspendedUntil : null,
    reason: state.reason,
    lastReply: state.lastReply,
    lastReplyAt: state.lastReplyAt,
    updatedAt: state.updatedAt,
  };
}

/** The source a key's first half names (`ip:7` with the IP's address, so address rules resolve). */
async function sourceOfKey(store: MailplaneStore, accountId: number, text: string): Promise<Source> {
  const [kind, id] = text.split(':');
  if (kind === 'ip')
    return { kind: 'ip', id: Number(id), address: (await store.ips.get(accountId, Number(id)))?.publicIp ?? '' };
  if (kind === 'tpsp') return { kind: 'tpsp', id: Number(id) };
  return { kind: 'host' };
}

/** The destination a key's second half names, as delivery would have seen it. */
function destinationOfKey(text: string): Destination {
  const [kind, ...rest] = text.split(':');
  const value = rest.join(':');
  if (kind === 'provider') {
    const provider = PROVIDER_KEYS.indexOf(value);
    return { domain: '', provider: (provider === -1 ? MailboxProvider.Default : provider) as MailboxProvider };
  }
  if (kind === 'mx') return { domain: '', provider: MailboxProvider.Default, mxHosts: [value.replace(/^\./, '')] };
  return { domain: value, provider: classifyByDomain(value) ?? MailboxProvider.Default };
}
