/**
 * The default shaping table: conservative starting points per source for the large mailbox
 * providers, and a default row for everything else. No provider publishes a rate for an unknown
 * sender (the rate each grants follows the source's reputation), so these are the limits an MTA
 * operator would start a new IP with, in line with what open MTAs ship (KumoMTA's community shaping
 * file, Postfix's per-destination concurrency of 20): few connections, a bounded number of
 * messages per connection, and per-hour rates that a clean IP stays under. Adaptive throttling
 * (throttle-replies.ts) halves a rate from there when a provider pushes back; the configuration
 * (`MailplaneOptions.shaping.rules`) and the account API (`PUT /account/shaping/rule`) override any
 * field. The default row sets nothing: mail to everything else keeps the transport's defaults and
 * costs no round trip to the store (the transport's own per-host connection cap still holds).
 */
import type { ShapingRule } from './rules.js';

/** The built-in table; docs/shaping.md shows it. */
export const DEFAULT_SHAPING_RULES: readonly ShapingRule[] = [
  // Everything else: the transport's own defaults (10 connections per MX host and source, its timeouts).
  { destination: '*', source: '*' },
  {
    destination: 'provider:gmail',
    source: '*',
    maxConnections: 10,
    maxMessagesPerConnection: 50,
    messagesPerHour: 36_000,
  },
  {
    destination: 'provider:microsoft',
    source: '*',
    maxConnections: 10,
    maxMessagesPerConnection: 100,
    messagesPerHour: 36_000,
  },
  {
    destination: 'provider:yahoo',
    source: '*',
    maxConnections: 10,
    maxMessagesPerConnection: 20,
    messagesPerHour: 18_000,
  },
  {
    destination: 'provider:aol',
    source: '*',
    maxConnections: 10,
    maxMessagesPerConnection: 20,
    messagesPerHour: 18_000,
  },
  {
    destination: 'provider:icloud',
    source: '*',
    maxConnections: 5,
    maxMessagesPerConnection: 20,
    messagesPerHour: 7_200,
  },
  {
    destination: 'provider:comcast',
    source: '*',
    maxConnections: 5,
    maxMessagesPerConnection: 20,
    messagesPerHour: 3_600,
  },
  { destination: 'provider:gmx', source: '*', maxConnections: 5, maxMessagesPerConnection: 20, messagesPerHour: 7_200 },
  {
    destination: 'provider:yandex',
    source: '*',
    maxConnections: 5,
    maxMessagesPerConnection: 20,
    messagesPerHour: 7_200,
  },
  {
    destination: 'provider:mailru',
    source: '*',
    maxConnections: 5,
    maxMessagesPerConnection: 20,
    messagesPerHour: 7_200,
  },
];
