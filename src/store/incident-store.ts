import type { EpochNs } from '../model/time.js';
import type { AlertEntityType, AlertParameter, AlertWindowHours } from './alert-store.js';
import type { Outcome } from './outcome.js';

/** Whether an incident is still going on. */
export type IncidentState = 'open' | 'resolved';

/**
 * Who closed an incident: `mailplane` (the rate stayed under the line for the rule's window),
 * `operator` (`POST /account/incident/{id}/resolve`), or `alert-deleted` (its rule went away).
 */
export type IncidentResolver = 'mailplane' | 'operator' | 'alert-deleted';

/** One entry of an incident's timeline: what happened, when, and who did it. */
export interface IncidentAction {
  at: EpochNs;
  /** What happened, a lower-case word: `opened`, `resolved`, `notified`, `blocked`, `unblocked`, `paused`, `resumed`, … */
  action: string;
  /** `mailplane` for what it did by itself, `operator` for what a call of the API did. */
  actor: 'mailplane' | 'operator';
  /** Plain words for people (at most 500 characters); may be empty. */
  detail: string;
}

/** An incident: a rule's line crossed (or an automatic protection acting), with what was measured. */
export interface IncidentRecord {
  id: number;
  accountId: number;
  /**
   * What the incident is about, chosen by the opener (`alert:<ruleId>` for a rule's, see
   * `alertIncidentTopic`): at most one incident per account and topic is open at a time.
   */
  topic: string;
  /** The rule that opened it; `null` for automatic protections, and once the rule is deleted. */
  alertId: number | null;
  entityType: AlertEntityType;
  entityId: number;
  parameter: AlertParameter;
  /** The mailbox provider measured (0-11), or `null` for all together. */
  provider: number | null;
  /** The line that was crossed, as the rule had it when the incident opened. */
  threshold: number;
  windowHours: AlertWindowHours;
  /** The value measured when it opened (a percentage for a rate, messages for volume). */
  measuredValue: number;
  /** The processed volume the value was measured on. */
  sampleSize: number;
  /** One line for people, written by the opener. */
  summary: string;
  state: IncidentState;
  /** When the crossing was detected. */
  started: EpochNs;
  resolvedAt: EpochNs | null;
  resolvedBy: IncidentResolver | null;
  updated: EpochNs;
  /**
   * When the evaluation first saw the rate back on the good side of the line, `null` while it is
   * not (and for incidents no rule measures): it resolves by itself once that has lasted its window.
   */
  clearSince: EpochNs | null;
  /** Every action, oldest first; the first is `opened`. */
  timeline: IncidentAction[];
}

/** What {@link IncidentStore.open} needs. */
export type NewIncident = Omit<
  IncidentRecord,
  'id' | 'state' | 'resolvedAt' | 'resolvedBy' | 'updated' | 'clearSince' | 'timeline'
>;

/** What {@link IncidentStore.list} reads: a page, newest first, optionally of one state. */
export interface IncidentListQuery {
  limit: number;
  offset: number;
  state?: IncidentState;
  /** Only incidents whose summary contains this text (case-insensitive, taken literally). */
  search?: string;
}

/** How {@link IncidentStore.resolve} closes an incident. */
export interface IncidentResolution {
  at: EpochNs;
  by: IncidentResolver;
  /** Added to the `resolved` action of the timeline. */
  detail: string;
}

/**
 * Storage of incidents, scoped by `accountId`: another account's incident is indistinguishable
 * from a missing one.
 *
 * - `open` MUST keep at most one open incident per account and `topic`, also under concurrent calls:
 *   when one is open it answers that one with `opened: false` and writes nothing; otherwise it
 *   stores the new incident, open, with the timeline's `opened` action (`actor` mailplane, the
 *   summary as detail) at `started`, and answers `opened: true`.
 * - `resolve` MUST answer `already-resolved` (writing nothing) for a resolved incident, also when
 *   two resolve it at once; it appends the `resolved` action, and frees the topic for a new `open`.
 * - `addAction` appends to the timeline (and sets `updated` to the action's time).
 * - `list` MUST order newest first (by id, descending); `search` matches the summary as the alert
 *   list's does the name (case-insensitive, `%` and `_` literal).
 * - `setClearSince` changes an open incident's `clearSince` only (not `updated`, not the timeline)
 *   and answers whether it found the incident open.
 * - `lastResolved` answers the most recently resolved incident of `topic` (by `resolvedAt`), if any.
 */
export interface IncidentStore {
  open(input: NewIncident): Promise<{ incident: IncidentRecord; opened: boolean }>;
  get(accountId: number, id: number): Promise<IncidentRecord | null>;
  /** The open incident of `topic`, if any. */
  findOpen(accountId: number, topic: string): Promise<IncidentRecord | null>;
  list(accountId: number, query: IncidentListQuery): Promise<IncidentRecord[]>;
  addAction(accountId: number, id: number, action: IncidentAction): Promise<IncidentRecord | null>;
  resolve(
    accountId: number,
    id: number,
    resolution: IncidentResolution,
  ): Promise<Outcome<IncidentRecord, 'not-found' | 'already-resolved'>>;
  setClearSince(accountId: number, id: number, since: EpochNs | null): Promise<boolean>;
  lastResolved(accountId: number, topic: string): Promise<IncidentRecord | null>;
  /** Open incidents of every account with `id > afterId`, by id, at most `limit`: the evaluation's pages. */
  listOpen(afterId: number, limit: number): Promise<IncidentRecord[]>;
}
