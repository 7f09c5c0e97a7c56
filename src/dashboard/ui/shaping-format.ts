/**
 * The Shaping page's logic that needs no DOM (docs/shaping.md): a rule as the form holds it and as
 * `PUT /account/shaping/rule` takes it, rates and limits as people read them, the API's refusal
 * turned to the form's rule numbers, and a receiver's reply shortened. Unit-tested in
 * test/unit/dashboard-shaping-format.test.ts.
 */

/** The limit fields of a rule, in the API's order, with their labels. */
export const LIMIT_FIELDS = [
  ['maxConnections', 'Connections'],
  ['maxMessagesPerConnection', 'Messages per connection'],
  ['messagesPerSecond', 'Per second'],
  ['messagesPerMinute', 'Per minute'],
  ['messagesPerHour', 'Per hour'],
  ['connectTimeoutMs', 'Connect timeout (ms)'],
  ['idleTimeoutMs', 'Idle timeout (ms)'],
] as const;

/** One limit field's name. */
export type LimitField = (typeof LIMIT_FIELDS)[number][0];

/** A rule as `GET /account/shaping/rule` answers it. */
export type ShapingRule = { destination: string; source: string } & Partial<Record<LimitField, number>>;

/** A rule as the form holds it: text as typed (a limit left empty is inherited); `id` keys its row. */
export interface RuleDraft {
  id: number;
  destination: string;
  source: string;
  limits: Record<LimitField, string>;
}

/** The form's row of a stored rule (or of a new one: every destination from every source). */
export function draftOfRule(id: number, rule: ShapingRule = { destination: '', source: '*' }): RuleDraft {
  const limits = {} as Record<LimitField, string>;
  for (const [field] of LIMIT_FIELDS) limits[field] = rule[field] === undefined ? '' : String(rule[field]);
  return { id, destination: rule.destination, source: rule.source, limits };
}

/**
 * The rule of a form row, for the API: empty limits left out; a limit that is not a number is sent as
 * typed, so the API's refusal names it rather than the form dropping it unsaid.
 */
export function ruleOfDraft(draft: RuleDraft): Record<string, unknown> {
  const rule: Record<string, unknown> = { destination: draft.destination.trim(), source: draft.source.trim() };
  for (const [field] of LIMIT_FIELDS) {
    const text = draft.limits[field].trim();
    if (text === '') continue;
    const value = Number(text);
    rule[field] = Number.isFinite(value) ? value : text;
  }
  return rule;
}

/** A count in the viewer's locale (`36,000`; a rate of `0.5` a minute keeps its fraction). */
export const formatCount = (value: number): string => value.toLocaleString(undefined, { maximumFractionDigits: 3 });

/** A rule's rate as people read it (`10 a second, 600 a minute`), or `—` when it inherits one. */
export function ruleRate(rule: ShapingRule): string {
  const parts = [
    rule.messagesPerSecond !== undefined && `${formatCount(rule.messagesPerSecond)} a second`,
    rule.messagesPerMinute !== undefined && `${formatCount(rule.messagesPerMinute)} a minute`,
    rule.messagesPerHour !== undefined && `${formatCount(rule.messagesPerHour)} an hour`,
  ].filter((part): part is string => part !== false);
  return parts.length === 0 ? '—' : parts.join(', ');
}

/** A limit of a state (`null`: the rule sets none). */
export const limitText = (value: number | null): string => (value === null ? 'no limit' : formatCount(value));

/**
 * The API's refusal of a table (`rules[2]: …`) in the form's words: the rule as its legend numbers
 * it (`Rule 3: …`, counted from 1) and its index, so the form can mark that row.
 */
export function ruleProblem(message: string): { index: number | undefined; text: string } {
  const named = /^rules\[(\d+)\]: ?/.exec(message);
  if (!named) return { index: undefined, text: message };
  const index = Number(named[1]);
  return { index, text: `Rule ${index + 1}: ${message.slice(named[0].length)}` };
}

/** A receiver's reply cut to `max` characters for a table cell; `cut` says whether text was left off. */
export function shortReply(text: string, max = 80): { short: string; cut: boolean } {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? { short: line, cut: false } : { short: `${line.slice(0, max - 1)}…`, cut: true };
}

/** The source half of a state's key: an IP or a TPSP by id, or the host's own address. */
export type StateSource = { kind: 'ip'; id: number } | { kind: 'tpsp'; id: number } | { kind: 'host' };

/** Reads a state's `source` (`ip:7`, `tpsp:3`, `host`). */
export function parseStateSource(source: string): StateSource {
  const [kind, id] = source.split(':');
  if ((kind === 'ip' || kind === 'tpsp') && id !== undefined && /^\d+$/.test(id)) return { kind, id: Number(id) };
  return { kind: 'host' };
}
