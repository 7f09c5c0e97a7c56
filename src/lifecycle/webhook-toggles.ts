import type { WebhookToggle, WebhookToggles } from '../store/index.js';

/**
 * Every webhook switch, in the order the reference document lists them, then mailplane's `incident`
 * (incidents opened and resolved: src/alerts/notify.ts). `satisfies` plus the
 * check below keep this list and the {@link WebhookToggle} union in step.
 */
export const WEBHOOK_TOGGLES = [
  'processed',
  'delivered',
  'dropped',
  'softBounced',
  'hardBounced',
  'opened',
  'clicked',
  'unsubscribed',
  'spam',
  'sent',
  'smtpDropped',
  'uniqueOpen',
  'uniqueClick',
  'incident',
] as const satisfies readonly WebhookToggle[];

// Fails to compile when a toggle is added to the union but not to the list.
type MissingToggle = Exclude<WebhookToggle, (typeof WEBHOOK_TOGGLES)[number]>;
const _allTogglesListed: MissingToggle extends never ? true : never = true;
void _allTogglesListed;

/**
 * The switch of each event `type` of the spec's Events table (0 Processed … 8 Spam), then
 * mailplane's 9 Cancelled (a scheduled message cancelled before its send: docs/sending.md), which
 * the reference's webhook has no switch for and which goes with `dropped` (a message not sent). The
 * delivery worker asks the store for the webhooks with this switch on; an Opened or Clicked event
 * that is the first of its message also reaches the webhooks with `uniqueOpen` / `uniqueClick` on.
 */
export const EVENT_TYPE_TOGGLES: readonly WebhookToggle[] = [
  'processed',
  'dropped',
  'delivered',
  'softBounced',
  'hardBounced',
  'opened',
  'clicked',
  'unsubscribed',
  'spam',
  'dropped',
];

/** The switch of the spec's event `type`, or `undefined` for a type outside the table. */
export function toggleForEventType(type: number): WebhookToggle | undefined {
  return Number.isInteger(type) ? EVENT_TYPE_TOGGLES[type] : undefined;
}

/**
 * Every switch that selects webhooks for an event: its type's switch, plus `uniqueOpen` or
 * `uniqueClick` for the first open or click of a message (`metadata.unique`, src/tracking/engagement.ts).
 */
export function togglesForEvent(type: number, metadata: Record<string, unknown>): WebhookToggle[] {
  const toggle = toggleForEventType(type);
  if (!toggle) return [];
  if (metadata.unique === true && toggle === 'opened') return [toggle, 'uniqueOpen'];
  if (metadata.unique === true && toggle === 'clicked') return [toggle, 'uniqueClick'];
  return [toggle];
}

/** All switches set to `value`; the starting point of a new webhook. */
export function allToggles(value: boolean): WebhookToggles {
  return Object.fromEntries(WEBHOOK_TOGGLES.map((toggle) => [toggle, value])) as WebhookToggles;
}

/** Picks the switches out of a record (or any object that has them). */
export function pickToggles(source: WebhookToggles): WebhookToggles {
  return Object.fromEntries(WEBHOOK_TOGGLES.map((toggle) => [toggle, source[toggle]])) as WebhookToggles;
}
