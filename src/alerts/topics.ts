/**
 * The topics of the automatic protections' incidents (an account has at most one open incident per
 * topic, src/store/incident-store.ts), and the undo that closes one: the operator's unblock or
 * resume, or mailplane seeing the cause gone. A rule's own topic is `alertIncidentTopic` (codes.ts).
 */
import type { Clock } from '../model/time.js';
import { nowNs } from '../model/time.js';
import type {
  AlertParameter,
  IncidentAction,
  IncidentRecord,
  IncidentResolver,
  MailplaneStore,
} from '../store/index.js';

/** The topic of a sub-account's automatic block: one open incident per blocked sub-account. */
export const blockIncidentTopic = (subAccountId: number): string => `block:${subAccountId}`;

/** The topic of a sub-account's warning on one rate (it is not blocked): one open per sub-account and rate. */
export const warnIncidentTopic = (subAccountId: number, parameter: AlertParameter): string =>
  `warn:${subAccountId}:${parameter}`;

/**
 * The topic of a source's pause for one destination, by its traffic-shaping key (`ip:7|provider:gmail`):
 * one open incident per paused source × destination.
 */
export const pauseIncidentTopic = (shapingKey: string): string => `pause:${shapingKey}`;

/** How {@link closeTopicIncident} closes an incident. */
export interface TopicIncidentClose {
  accountId: number;
  topic: string;
  by: Exclude<IncidentResolver, 'alert-deleted'>;
  /** The timeline's action before `resolved` (`unblocked`, `resumed`), or none. */
  action?: IncidentAction['action'];
  /** Plain words for the action and the resolution (at most 500 characters). */
  detail: string;
  /** Queues the notifications of the resolution through the transaction that resolves it (`notifyIncident`). */
  notify?: (store: MailplaneStore, incident: IncidentRecord) => Promise<void>;
}

/**
 * Resolves the open incident of a topic, with `action` on its timeline first and its notifications,
 * in one transaction (part of `deps.store`'s, when it is one); answers it, or `null` when none was
 * open (nothing is written then). Two closing it at once resolve it once.
 */
export async function closeTopicIncident(
  deps: { store: MailplaneStore; clock: Clock },
  close: TopicIncidentClose,
): Promise<IncidentRecord | null> {
  const open = await deps.store.incidents.findOpen(close.accountId, close.topic);
  if (!open) return null;
  const at = nowNs(deps.clock);
  return deps.store.transaction(async (tx) => {
    if (close.action !== undefined)
      await tx.incidents.addAction(close.accountId, open.id, {
        at,
        action: close.action,
        actor: close.by,
        detail: close.detail,
      });
    const outcome = await tx.incidents.resolve(close.accountId, open.id, { at, by: close.by, detail: close.detail });
    // Resolved meanwhile by someone else: their resolution stands (and told people already).
    if (!outcome.ok) return null;
    await close.notify?.(tx, outcome.value);
    return outcome.value;
  });
}
