/**
 * The reputation guard's evaluation (docs/reputation.md): once a minute, on one node of a cluster
 * (the `reputation` job, evaluation-job.ts), it measures every active alert rule and every
 * sub-account's automatic protection from the hourly reputation counters (never a scan of messages
 * or events), opens an incident for each line crossed, blocks a sub-account whose rate reached its
 * block line, and resolves an incident once its rate has stayed on the good side for its window.
 */
import type { Logger } from '../logging/logger.js';
import { nowNs, nsToMs, type Clock } from '../model/time.js';
import {
  hourOfMs,
  type AlertRecord,
  type IncidentRecord,
  type MailplaneStore,
  type NewIncident,
} from '../store/index.js';
import { alertIncidentTopic, alertParameterOf, alertProviderName, alertWindowWords } from './codes.js';
import { crosses, describeMeasurement, measure, scopeOfRule, windowHoursAt } from './measure.js';
import { ProtectionEvaluation } from './protection-evaluation.js';
import type { IncidentNotice } from './notify.js';
import { protectionView, type ProtectionSettings, type ProtectionView } from './protection.js';

const HOUR_MS = 3_600_000;
const PAGE = 200;

/** What the evaluation needs. */
export interface EvaluationDeps {
  store: MailplaneStore;
  clock: Clock;
  logger: Logger;
  /** The instance's protection defaults (the options over {@link DEFAULT_PROTECTION}). */
  protection: ProtectionSettings;
  /** Queues an incident's notifications through `store` (src/alerts/notify.ts). */
  notify(store: MailplaneStore, notice: IncidentNotice): Promise<void>;
}

/** What one run did. */
export interface EvaluationRun {
  rules: number;
  opened: number;
  resolved: number;
  blocked: number;
}

/** Where an incident's people are told. */
type Targets = Pick<IncidentNotice, 'emails' | 'slackUrl'>;

/** One run of the evaluation; a new one per run, so nothing outlives it but what the store keeps. */
export class ReputationEvaluation {
  private readonly nowMs: number;
  readonly nowHour: number;
  /** `<accountId> <topic>` of every incident whose line is crossed in this run. */
  private readonly crossing = new Set<string>();
  private readonly views = new Map<number, ProtectionView>();
  readonly run: EvaluationRun = { rules: 0, opened: 0, resolved: 0, blocked: 0 };

  constructor(readonly deps: EvaluationDeps) {
    this.nowMs = deps.clock.now();
    this.nowHour = hourOfMs(this.nowMs);
  }

  /** Rules, then the protection, then the open incidents that may resolve. */
  async evaluate(): Promise<EvaluationRun> {
    await this.evaluateRules();
    await new ProtectionEvaluation(this).evaluate();
    await this.settleOpenIncidents();
    return this.run;
  }

  private async evaluateRules(): Promise<void> {
    for (let after = 0; ;) {
      const rules = await this.deps.store.alerts.listActive(after, PAGE);
      for (const rule of rules) await this.evaluateRule(rule);
      if (rules.length < PAGE) return;
      after = rules.at(-1)!.id;
    }
  }

  private async evaluateRule(rule: AlertRecord): Promise<void> {
    this.run.rules += 1;
    const scope = await scopeOfRule(this.deps.store, rule);
    if (!scope) return;
    const { fromHour, toHour } = windowHoursAt(this.nowHour, rule.windowHours);
    const counters = await this.deps.store.reputation.total(scope, fromHour, toHour);
    const measured = measure(rule.parameter, rule.entityType, counters, rule.processedCountThreshold);
    if (!measured || !crosses(rule.parameter, measured.value, rule.threshold)) return;
    const info = alertParameterOf(rule.parameter)!;
    const line = info.unit === 'percent' ? `${rule.threshold} %` : `${rule.threshold} messages`;
    const provider = rule.provider === null ? '' : ` at ${alertProviderName(rule.provider)}`;
    await this.raise(
      {
        accountId: rule.accountId,
        topic: alertIncidentTopic(rule.id),
        alertId: rule.id,
        entityType: rule.entityType,
        entityId: rule.entityId,
        parameter: rule.parameter,
        provider: rule.provider,
        threshold: rule.threshold,
        windowHours: rule.windowHours,
        measuredValue: measured.value,
        sampleSize: measured.sampleSize,
        summary: `${rule.name}: ${describeMeasurement(rule.parameter, rule.entityType, rule.windowHours, measured)}${provider} ${info.crosses === 'below' ? 'fell under' : 'reached'} ${line}`,
        started: nowNs(this.deps.clock),
      },
      rule,
    );
  }

  /** Marks `topic` as crossed in this run: its open incident, if any, is not settled. */
  markCrossing(accountId: number, topic: string): void {
    this.crossing.add(`${accountId} ${topic}`);
  }

  /**
   * Marks `incident`'s topic as crossed in this run; opens it (and tells people) unless it is open,
   * in which case it only forgets a `clearSince` (the rate went bad again before it resolved).
   */
  async raise(incident: NewIncident, targets: Targets, then?: (tx: MailplaneStore) => Promise<void>): Promise<boolean> {
    const { store } = this.deps;
    this.markCrossing(incident.accountId, incident.topic);
    const open = await store.incidents.findOpen(incident.accountId, incident.topic);
    if (open) {
      if (open.clearSince !== null) await store.incidents.setClearSince(incident.accountId, open.id, null);
      return false;
    }
    const opened = await store.transaction(async (tx) => {
      const result = await tx.incidents.open(incident);
      if (!result.opened) return false;
      await then?.(tx);
      const current = (await tx.incidents.get(incident.accountId, result.incident.id)) ?? result.incident;
      await this.deps.notify(tx, { incident: current, change: 'opened', ...targets });
      return true;
    });
    if (!opened) return false;
    this.run.opened += 1;
    this.deps.logger.warn('reputation: an incident opened', {
      accountId: incident.accountId,
      topic: incident.topic,
      summary: incident.summary,
    });
    return true;
  }

  async viewOf(accountId: number): Promise<ProtectionView> {
    let view = this.views.get(accountId);
    if (!view) {
      view = protectionView(this.deps.protection, await this.deps.store.alerts.protection(accountId));
      this.views.set(accountId, view);
    }
    return view;
  }

  /**
   * Every open incident a measurement watches (a rule's, or a protection warning) that was not
   * crossed in this run: its rate is back on the good side (or its volume too small to judge). The
   * first such run marks when; once that has lasted the incident's window, it resolves.
   */
  private async settleOpenIncidents(): Promise<void> {
    for (let after = 0; ;) {
      const open = await this.deps.store.incidents.listOpen(after, PAGE);
      for (const incident of open) await this.settle(incident);
      if (open.length < PAGE) return;
      after = open.at(-1)!.id;
    }
  }

  private async settle(incident: IncidentRecord): Promise<void> {
    const { store } = this.deps;
    const measured = incident.topic.startsWith('alert:') || incident.topic.startsWith('warn:');
    if (!measured || this.crossing.has(`${incident.accountId} ${incident.topic}`)) return;
    if (incident.clearSince === null) {
      await store.incidents.setClearSince(incident.accountId, incident.id, nowNs(this.deps.clock));
      return;
    }
    if (this.nowMs - nsToMs(incident.clearSince) < incident.windowHours * HOUR_MS) return;
    const targets = await this.targetsOf(incident);
    const resolved = await store.transaction(async (tx) => {
      const outcome = await tx.incidents.resolve(incident.accountId, incident.id, {
        at: nowNs(this.deps.clock),
        by: 'mailplane',
        detail: `back on the good side of the line for ${alertWindowWords(incident.windowHours)}`,
      });
      if (outcome.ok) await this.deps.notify(tx, { incident: outcome.value, change: 'resolved', ...targets });
      return outcome.ok;
    });
    if (resolved) this.run.resolved += 1;
  }

  /** Who hears of `incident`: its rule's targets, or the account's protection's. */
  private async targetsOf(incident: IncidentRecord): Promise<Targets> {
    if (incident.alertId !== null) {
      const rule = await this.deps.store.alerts.get(incident.accountId, incident.alertId);
      return { emails: rule?.emails ?? [], slackUrl: rule?.slackUrl ?? null };
    }
    if (incident.topic.startsWith('alert:')) return { emails: [], slackUrl: null };
    return (await this.viewOf(incident.accountId)).account;
  }
}
