import { AlertParameter, type AlertEntityType, type AlertWindowHours } from '../store/index.js';
import { MAILBOX_PROVIDER_COUNT, MAILBOX_PROVIDER_NAMES } from '../routing/providers.js';

/**
 * How a rule's parameter is measured and which side of the threshold is bad: a rate in percent of
 * the window's processed mail crosses its line by reaching it (`above`) or, for delivery and opens,
 * by falling under it (`below`); volume counts processed messages and crosses by reaching its line.
 */
export interface AlertParameterInfo {
  code: AlertParameter;
  /** Words for people: summaries, notifications, docs/reputation.md. */
  label: string;
  unit: 'percent' | 'messages';
  crosses: 'above' | 'below';
}

/** Every parameter by its code (docs/reputation.md lists the same table). */
export const ALERT_PARAMETERS: readonly AlertParameterInfo[] = [
  { code: AlertParameter.HardBounceRate, label: 'hard-bounce rate', unit: 'percent', crosses: 'above' },
  { code: AlertParameter.SoftBounceRate, label: 'soft-bounce rate', unit: 'percent', crosses: 'above' },
  { code: AlertParameter.SpamComplaintRate, label: 'spam-complaint rate', unit: 'percent', crosses: 'above' },
  { code: AlertParameter.UnsubscribeRate, label: 'unsubscribe rate', unit: 'percent', crosses: 'above' },
  { code: AlertParameter.DeliveryRate, label: 'delivery rate', unit: 'percent', crosses: 'below' },
  { code: AlertParameter.OpenRate, label: 'open rate', unit: 'percent', crosses: 'below' },
  { code: AlertParameter.DroppedRate, label: 'dropped rate', unit: 'percent', crosses: 'above' },
  { code: AlertParameter.Volume, label: 'volume', unit: 'messages', crosses: 'above' },
];

/** The parameter of `code`, or `undefined` for a code no parameter has. */
export const alertParameterOf = (code: number): AlertParameterInfo | undefined =>
  ALERT_PARAMETERS.find((parameter) => parameter.code === code);

/** The entity types a rule may watch, as `entityType` spells them. */
export const ALERT_ENTITY_TYPES: readonly AlertEntityType[] = ['account', 'subAccount', 'ip', 'ipPool', 'domain'];

/** The windows offered, in hours: 1 hour, 24 hours, 7 days. */
export const ALERT_WINDOW_HOURS: readonly AlertWindowHours[] = [1, 24, 168];

/** The largest volume threshold: far beyond any window's mail, small enough to stay exact everywhere. */
export const MAX_VOLUME_THRESHOLD = 1_000_000_000_000;

/** The largest `processedCountThreshold`. */
export const MAX_PROCESSED_COUNT_THRESHOLD = 1_000_000_000;

/** `provider` on the wire: `all`, or a mailbox provider id (0-11) as text. */
export const ALL_PROVIDERS = 'all';

/**
 * A provider as given (`all`, an id as a number or as decimal text) as stored: `null` for all, the
 * id otherwise; `undefined` when it names no provider.
 */
export function parseAlertProvider(value: string | number): number | null | undefined {
  if (value === ALL_PROVIDERS) return null;
  const id = typeof value === 'number' ? value : /^[0-9]{1,2}$/.test(value) ? Number(value) : Number.NaN;
  return Number.isInteger(id) && id >= 0 && id < MAILBOX_PROVIDER_COUNT ? id : undefined;
}

/** A stored provider as the wire's text. */
export const alertProviderToWire = (provider: number | null): string =>
  provider === null ? ALL_PROVIDERS : String(provider);

/** The provider's display name, for summaries. */
export const alertProviderName = (provider: number | null): string =>
  provider === null ? 'all providers' : (MAILBOX_PROVIDER_NAMES[provider] ?? String(provider));

/**
 * The incident topic of a rule: the evaluation opens its incidents under it, so a rule has at
 * most one open incident, and deleting the rule resolves that one.
 */
export const alertIncidentTopic = (alertId: number): string => `alert:${alertId}`;

/** A window in words, for summaries and notifications: `1 hour`, `24 hours`, `7 days`. */
export const alertWindowWords = (hours: number): string =>
  hours === 1 ? '1 hour' : hours === 168 ? '7 days' : `${hours} hours`;
