/**
 * The Shaping page's logic without a browser (src/dashboard/ui/shaping-format.ts): a rule between
 * the form and the API, rates as people read them, the API's refusal in the form's rule numbers, a
 * long reply folded, and the sources of state keys.
 */
import { describe, expect, it } from 'vitest';
import {
  draftOfRule,
  limitText,
  parseStateSource,
  ruleOfDraft,
  ruleProblem,
  ruleRate,
  shortReply,
} from '../../src/dashboard/ui/shaping-format.js';

describe('the Shaping page logic', () => {
  it('round-trips a rule through the form, leaving out empty limits and sending what is not a number as typed', () => {
    const rule = { destination: 'provider:gmail', source: 'ip:203.0.113.7', maxConnections: 2, messagesPerMinute: 120 };
    const draft = draftOfRule(4, rule);
    expect(draft.limits).toMatchObject({ maxConnections: '2', messagesPerMinute: '120', messagesPerHour: '' });
    expect(ruleOfDraft(draft)).toEqual(rule);
    const typed = { ...draftOfRule(5), destination: ' domain:example.com ' };
    typed.limits.messagesPerHour = ' 500 ';
    typed.limits.idleTimeoutMs = 'ten';
    expect(ruleOfDraft(typed)).toEqual({
      destination: 'domain:example.com',
      source: '*',
      messagesPerHour: 500,
      idleTimeoutMs: 'ten',
    });
  });

  it('reads rates and limits, and names the refused rule as the form numbers it', () => {
    expect(ruleRate({ destination: '*', source: '*' })).toBe('—');
    expect(ruleRate({ destination: '*', source: '*', messagesPerSecond: 10, messagesPerHour: 36_000 })).toBe(
      `10 a second, ${(36_000).toLocaleString()} an hour`,
    );
    expect(limitText(null)).toBe('no limit');
    expect(limitText(0.5)).toBe((0.5).toLocaleString());
    expect(ruleProblem('rules[1]: unknown provider "hotmale"')).toEqual({
      index: 1,
      text: 'Rule 2: unknown provider "hotmale"',
    });
    expect(ruleProblem('the body is not JSON')).toEqual({ index: undefined, text: 'the body is not JSON' });
  });

  it('folds a long reply to one short line and reads state sources', () => {
    expect(shortReply('421 4.7.0\r\n  try later')).toEqual({ short: '421 4.7.0 try later', cut: false });
    const long = shortReply('x'.repeat(200), 80);
    expect(long).toEqual({ short: `${'x'.repeat(79)}…`, cut: true });
    expect(parseStateSource('ip:7')).toEqual({ kind: 'ip', id: 7 });
    expect(parseStateSource('tpsp:3')).toEqual({ kind: 'tpsp', id: 3 });
    expect(parseStateSource('host')).toEqual({ kind: 'host' });
    expect(parseStateSource('ip:x')).toEqual({ kind: 'host' });
  });
});
