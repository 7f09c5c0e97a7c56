/**
 * The check of a shaping rule table as it enters, from the configuration or the API: every rule an
 * object with a valid destination, a valid source and whole positive limits, and no other field.
 * Answers every problem with the rule's index, so the API's 422 and the options error name them all.
 */
import {
  isRuleProblem,
  limitProblems,
  parseDestination,
  parseSource,
  SHAPING_LIMIT_FIELDS,
  type RuleProblem,
  type ShapingRule,
} from './rules.js';

/** Most rules one table holds (the configuration's, or one account's). */
export const MAX_SHAPING_RULES = 500;

/** A problem of one rule of a table. */
export interface RuleTableProblem extends RuleProblem {
  /** The rule's index in the table, or -1 for the table itself. */
  index: number;
}

/** Whether `key` is a field a rule may have. */
function isRuleField(key: string): boolean {
  return key === 'destination' || key === 'source' || (SHAPING_LIMIT_FIELDS as readonly string[]).includes(key);
}

/** The rules of `value` when it is a valid table, else every problem found. */
export function checkShapingRules(
  value: unknown,
): { ok: true; rules: ShapingRule[] } | { ok: false; problems: RuleTableProblem[] } {
  if (!Array.isArray(value))
    return { ok: false, problems: [{ index: -1, code: 'INVALID_SHAPING_RULE', message: 'rules must be a list' }] };
  if (value.length > MAX_SHAPING_RULES)
    return {
      ok: false,
      problems: [{ index: -1, code: 'INVALID_SHAPING_RULE', message: `at most ${MAX_SHAPING_RULES} rules` }],
    };
  const problems: RuleTableProblem[] = [];
  const rules: ShapingRule[] = [];
  value.forEach((item: unknown, index) => {
    const found = problemsOf(item);
    problems.push(...found.map((problem) => ({ ...problem, index })));
    if (found.length === 0) rules.push(item as ShapingRule);
  });
  return problems.length === 0 ? { ok: true, rules: rules.map(normalised) } : { ok: false, problems };
}

function problemsOf(item: unknown): RuleProblem[] {
  if (typeof item !== 'object' || item === null || Array.isArray(item))
    return [{ code: 'INVALID_SHAPING_RULE', message: 'a rule must be an object { destination, source, limits… }' }];
  const rule = item as Record<string, unknown>;
  const unknown = Object.keys(rule).filter((key) => !isRuleField(key));
  if (unknown.length > 0)
    return [
      {
        code: 'INVALID_SHAPING_RULE',
        message: `unknown field ${unknown.map((k) => `"${k.slice(0, 40)}"`).join(', ')}: a rule has destination, source, ${SHAPING_LIMIT_FIELDS.join(', ')}`,
      },
    ];
  const problems: RuleProblem[] = [];
  for (const [field, parse] of [
    ['destination', parseDestination],
    ['source', parseSource],
  ] as const) {
    const text = rule[field];
    if (typeof text !== 'string') {
      problems.push({ code: 'INVALID_SHAPING_RULE', message: `${field} must be a string` });
      continue;
    }
    const parsed = parse(text);
    if (isRuleProblem(parsed)) problems.push(parsed);
  }
  problems.push(...limitProblems(rule));
  return problems;
}

/** The rule with its destination's name in lower case, as it is stored and shown. */
function normalised(rule: ShapingRule): ShapingRule {
  const [kind, ...rest] = rule.destination.split(':');
  const destination = rule.destination === '*' ? '*' : `${kind!.trim()}:${rest.join(':').trim()}`.toLowerCase();
  const out: ShapingRule = { destination, source: rule.source.trim() };
  for (const field of SHAPING_LIMIT_FIELDS) if (rule[field] !== undefined) out[field] = rule[field];
  return out;
}
