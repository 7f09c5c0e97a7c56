/**
 * The Alerts and Incidents pages' logic that needs no DOM (docs/reputation.md): a rule's codes in
 * words, a rule between the form and the API, an incident's figures, and the sources traffic shaping
 * suspended. Unit-tested in test/unit/dashboard-reputation-format.test.ts, which also holds the
 * tables below equal to the API's own (src/alerts/codes.ts: it reaches the store's types, which the
 * browser's build does not compile).
 */
import { MAILBOX_PROVIDER_NAMES } from '../../routing/providers.js';
import { PROVIDERS } from './format.js';
import { formatCount, parseStateSource } from './shaping-format.js';

/** An alert rule as `GET /account/alert/` answers it. */
export interface AlertRule {
  id: number;
  name: string;
  active: boolean;
  entityType: string;
  entityValue: string;
  parameter: number;
  threshold: string;
  provider: string;
  processedCountThreshold: number;
  windowHours: number;
  emails: string[];
  slackUrl: string | null;
}

/** One entry of an incident's timeline. */
export interface IncidentAction {
  at: number;
  action: string;
  actor: 'mailplane' | 'operator';
  detail: string;
}

/**
 * An incident as `GET /account/incident/` answers it. `topic` (`pause:<shaping key>` for a source
 * traffic shaping suspended) is read when the API gives it.
 */
export interface Incident {
  id: number;
  state: 'open' | 'resolved';
  summary: string;
  created: number;
  closed: number | null;
  resolvedBy: 'mailplane' | 'operator' | 'alert-deleted' | null;
  alertId: number | null;
  entityType: string;
  entityValue: string;
  parameter: number;
  provider: string;
  threshold: string;
  windowHours: number;
  measuredValue: number;
  sampleSize: number;
  timeline: IncidentAction[];
  topic?: string;
}

/** The parameters of docs/reputation.md by code: words, unit, and the side of the line that fires. */
export const ALERT_PARAMETERS: readonly {
  code: number;
  label: string;
  unit: 'percent' | 'messages';
  crosses: 'above' | 'below';
}[] = [
  { code: 0, label: 'hard-bounce rate', unit: 'percent', crosses: 'above' },
  { code: 1, label: 'soft-bounce rate', unit: 'percent', crosses: 'above' },
  { code: 2, label: 'spam-complaint rate', unit: 'percent', crosses: 'above' },
  { code: 3, label: 'unsubscribe rate', unit: 'percent', crosses: 'above' },
  { code: 4, label: 'delivery rate', unit: 'percent', crosses: 'below' },
  { code: 5, label: 'open rate', unit: 'percent', crosses: 'below' },
  { code: 6, label: 'dropped rate', unit: 'percent', crosses: 'above' },
  { code: 7, label: 'volume', unit: 'messages', crosses: 'above' },
];

/** The entity types a rule may watch, as `entityType` spells them. */
export const ALERT_ENTITY_TYPES = ['account', 'subAccount', 'ip', 'ipPool', 'domain'] as const;

/** The windows offered, in hours. */
export const ALERT_WINDOW_HOURS: readonly number[] = [1, 24, 168];

/** The entity types in the API's order, with the words the pages use for them. */
export const ENTITY_TYPES: readonly (readonly [string, string])[] = ALERT_ENTITY_TYPES.map((type) => [
  type,
  { account: 'The account', subAccount: 'Sub-account', ip: 'IP', ipPool: 'IP pool', domain: 'Sending domain' }[type],
]);

/** The parameters: code and words (`hard-bounce rate`). */
export const PARAMETERS: readonly (readonly [number, string])[] = ALERT_PARAMETERS.map((p) => [p.code, p.label]);

/** The windows offered, in hours, with their words. */
export const WINDOWS: readonly (readonly [number, string])[] = ALERT_WINDOW_HOURS.map((hours) => [
  hours,
  windowText(hours),
]);

/** `provider` of the wire (`all`, or an id 0-11 as text) and its name, in the API's order. */
export const PROVIDER_CHOICES: readonly (readonly [string, string])[] = [
  ['all', 'All providers'],
  ...MAILBOX_PROVIDER_NAMES.map((name, id) => [String(id), name === 'default' ? 'Any other provider' : name] as const),
];

/** A window in words: `the last hour`, `the last 24 hours`, `the last 7 days`. */
export function windowText(hours: number): string {
  if (hours === 1) return 'the last hour';
  if (hours % 24 === 0 && hours > 24) return `the last ${hours / 24} days`;
  return `the last ${hours} hours`;
}

/** A parameter in words, or `parameter <n>` for a code this dashboard does not know. */
export const parameterText = (code: number): string =>
  ALERT_PARAMETERS.find((p) => p.code === code)?.label ?? `parameter ${code}`;

/** A parameter's unit in words: `%` for a rate, `messages` for volume. */
export const unitText = (parameter: number): string =>
  ALERT_PARAMETERS.find((p) => p.code === parameter)?.unit === 'messages' ? 'messages' : '%';

/** A threshold or a measured value with its parameter's unit: `5 %`, `1,000 messages`. */
export function valueText(parameter: number, value: number | string): string {
  const number = Number(value);
  const shown = Number.isFinite(number) ? formatCount(number) : String(value);
  if (unitText(parameter) === '%') return `${shown} %`;
  return `${shown} message${number === 1 ? '' : 's'}`;
}

/** A rule's line in words: `at or above 5 %`, or `under 95 %` for the delivery and open rates. */
export function lineText(parameter: number, threshold: number | string): string {
  const crosses = ALERT_PARAMETERS.find((p) => p.code === parameter)?.crosses;
  return `${crosses === 'below' ? 'under' : 'at or above'} ${valueText(parameter, threshold)}`;
}

/** A provider of the wire in words: `All providers`, `Gmail`. */
export const providerText = (provider: string): string =>
  PROVIDER_CHOICES.find(([value]) => value === provider)?.[1] ?? `provider ${provider}`;

/** A rule as the form holds it: every field as typed. */
export interface AlertDraft {
  name: string;
  active: boolean;
  entityType: string;
  /** The entity's id as text; empty for the account, or until one is chosen. */
  entityValue: string;
  parameter: string;
  threshold: string;
  provider: string;
  processedCountThreshold: string;
  windowHours: string;
  /** Addresses separated by commas. */
  emails: string;
  slackUrl: string;
}

/** The form of a stored rule, or of a new one (the API's defaults: all providers, 100 messages, 24 hours). */
export function draftOfAlert(rule?: AlertRule): AlertDraft {
  if (!rule) {
    return {
      name: '',
      active: true,
      entityType: 'account',
      entityValue: '',
      parameter: '0',
      threshold: '',
      provider: 'all',
      processedCountThreshold: '100',
      windowHours: '24',
      emails: '',
      slackUrl: '',
    };
  }
  return {
    name: rule.name,
    active: rule.active,
    entityType: rule.entityType,
    entityValue: rule.entityType === 'account' ? '' : rule.entityValue,
    parameter: String(rule.parameter),
    threshold: rule.threshold,
    provider: rule.provider,
    processedCountThreshold: String(rule.processedCountThreshold),
    windowHours: String(rule.windowHours),
    emails: rule.emails.join(', '),
    slackUrl: rule.slackUrl ?? '',
  };
}

/** A whole number typed in a field; other text is sent as typed, so the API's refusal names the field. */
const wholeOrText = (text: string): number | string => (/^\d+$/.test(text.trim()) ? Number(text.trim()) : text);

/** Addresses typed separated by commas, each trimmed, the empty ones left out. */
export const splitAddresses = (text: string): string[] =>
  text
    .split(',')
    .map((address) => address.trim())
    .filter((address) => address !== '');

/**
 * The body of `POST /account/alert/` or `PUT /account/alert/{id}` of a form: the account's own id
 * left out, the threshold as typed (the API reads decimal text exactly), addresses split at commas,
 * an empty Slack URL as none.
 */
export function alertBody(draft: AlertDraft): Record<string, unknown> {
  const entityValue = draft.entityValue.trim();
  return {
    name: draft.name.trim(),
    active: draft.active,
    entityType: draft.entityType,
    ...(draft.entityType !== 'account' && entityValue !== '' && { entityValue: wholeOrText(entityValue) }),
    parameter: Number(draft.parameter),
    threshold: draft.threshold.trim(),
    provider: draft.provider,
    processedCountThreshold: wholeOrText(draft.processedCountThreshold),
    windowHours: Number(draft.windowHours),
    emails: splitAddresses(draft.emails),
    slackUrl: draft.slackUrl.trim() === '' ? null : draft.slackUrl.trim(),
  };
}

/** The problems of a refused request by the field they name (`emails[1]` counts as `emails`). */
export function fieldProblems(details: readonly { path: string; message: string }[]): Record<string, string> {
  const byField: Record<string, string> = {};
  for (const { path, message } of details) {
    const field = /^[A-Za-z]+/.exec(path)?.[0];
    if (field !== undefined && byField[field] === undefined) byField[field] = message;
  }
  return byField;
}

/** The shaping key of an incident about a suspended source (`pause:<key>`), if it is one. */
export const pauseKeyOf = (topic: string | undefined): string | undefined =>
  topic?.startsWith('pause:') && topic.length > 'pause:'.length ? topic.slice('pause:'.length) : undefined;

/** A shaping destination in words: `provider:gmail` is `Gmail`, `domain:example.com` that domain. */
export function destinationText(destination: string): string {
  if (destination === '*') return 'every destination';
  const [kind, ...rest] = destination.split(':');
  const value = rest.join(':');
  if (kind === 'provider') {
    const id = PROVIDERS.indexOf(value);
    return id >= 0 ? (MAILBOX_PROVIDER_NAMES[id] ?? value) : value;
  }
  if (kind === 'mx') return `mail exchangers of ${value}`;
  return value === '' ? destination : value;
}

/** What {@link pausesOfIp} reads of a shaping state. */
export interface SuspendableState {
  source: string;
  destination: string;
  suspendedUntil: number | null;
}

/** The destinations (in words) an IP is suspended for at `nowMs`, from the shaping state list. */
export function pausesOfIp(states: readonly SuspendableState[], ipId: number, nowMs: number): string[] {
  return states
    .filter((state) => {
      const source = parseStateSource(state.source);
      return (
        source.kind === 'ip' && source.id === ipId && state.suspendedUntil !== null && state.suspendedUntil > nowMs
      );
    })
    .map((state) => destinationText(state.destination));
}
