import { describe, expect, it } from 'vitest';
import { createMailplane, MailplaneOptionsError } from 'mailplane';
import { DEFAULT_SHAPING_RULES } from '../../src/shaping/defaults.js';
import { ShapingRuleSet, type Destination, type Source } from '../../src/shaping/rules.js';
import { MailboxProvider } from '../../src/routing/providers.js';

const ip7: Source = { kind: 'ip', id: 7, address: '203.0.113.7' };
const gmail: Destination = { domain: 'gmail.com', provider: MailboxProvider.Gmail };
const workspace: Destination = {
  domain: 'acme.example',
  provider: MailboxProvider.Gmail,
  mxHosts: ['aspmx.l.google.com'],
};

describe('shaping rules', () => {
  it('merges matching rules field by field, the more specific winning, and keys the state by the most specific destination', () => {
    const rules = new ShapingRuleSet([
      DEFAULT_SHAPING_RULES,
      [
        { destination: 'provider:gmail', source: 'ip:203.0.113.7', maxConnections: 2 },
        { destination: 'domain:acme.example', source: '*', maxMessagesPerConnection: 5 },
      ],
    ]);
    const toGmail = rules.resolve(ip7, gmail);
    expect(toGmail.key).toBe('ip:7|provider:gmail');
    // The IP's own rule lowers the default table's 10 connections and keeps its other fields.
    expect(toGmail.limits).toMatchObject({ maxConnections: 2, maxMessagesPerConnection: 50, messagesPerHour: 36_000 });
    expect(toGmail.intervalMs).toBe(100);
    const toWorkspace = rules.resolve(ip7, workspace);
    expect(toWorkspace.key).toBe('ip:7|domain:acme.example');
    expect(toWorkspace.limits).toMatchObject({ maxConnections: 2, maxMessagesPerConnection: 5 });
    // Another IP gets the table's limits, in a state of its own.
    expect(rules.resolve({ kind: 'ip', id: 8, address: '203.0.113.8' }, gmail)).toMatchObject({
      key: 'ip:8|provider:gmail',
      limits: { maxConnections: 10 },
    });
  });

  it('takes a rule that gives any rate field as the whole rate, and keeps the strictest of the fields it gives', () => {
    const rules = new ShapingRuleSet([
      DEFAULT_SHAPING_RULES,
      [{ destination: 'provider:gmail', source: '*', messagesPerSecond: 50, messagesPerMinute: 600 }],
    ]);
    const { limits, intervalMs } = rules.resolve(ip7, gmail);
    expect(limits.messagesPerHour).toBeUndefined();
    // 50 a second allows 20 ms; 600 a minute 100 ms: the stricter holds, smoothly.
    expect(intervalMs).toBe(100);
  });

  it('matches an MX suffix on a label boundary only, and keeps mail to everything else per recipient domain', () => {
    const rules = new ShapingRuleSet([[{ destination: 'mx:google.com', source: '*', messagesPerMinute: 60 }]]);
    expect(rules.resolve({ kind: 'host' }, workspace)).toMatchObject({ key: 'host|mx:google.com', intervalMs: 1000 });
    const lookalike = { domain: 'evil.example', provider: MailboxProvider.Default, mxHosts: ['mx.evilgoogle.com'] };
    expect(rules.resolve({ kind: 'host' }, lookalike)).toEqual({
      key: 'host|domain:evil.example',
      limits: {},
      intervalMs: null,
    });
  });

  it('refuses a bad rule in the options, naming it', () => {
    const build = () =>
      createMailplane({
        store: {} as never,
        secret: 'x'.repeat(32),
        shaping: { rules: [{ destination: 'provider:nowhere', source: '*' }] },
      });
    expect(build).toThrow(MailplaneOptionsError);
    expect(build).toThrow(/shaping\.rules.*rule 0: unknown provider "nowhere"/s);
  });
});
