/**
 * The automatic protection's part of an evaluation (docs/reputation.md, "Automatic protection:
 * blocked sub-accounts"): every sub-account with mail in the window is measured against its lines,
 * blocked at the block line and warned between the two.
 */
import { nowNs, nsToMs, type Clock } from '../model/time.js';
import {
  AlertParameter,
  hourOfMs,
  type MailplaneStore,
  type NewIncident,
  type SubAccountReputation,
} from '../store/index.js';
import { describeMeasurement, measure, windowHoursAt, type Measurement } from './measure.js';
import {
  MIN_PROTECTION_VOLUME,
  PROTECTION_WINDOW_HOURS,
  protectionFor,
  type ProtectionLine,
  type ProtectionSettings,
  type ProtectionView,
} from './protection.js';
import type { IncidentNotice } from './notify.js';
import { blockIncidentTopic, warnIncidentTopic } from './topics.js';

/** What the protection uses of the evaluation run it is part of (`ReputationEvaluation`). */
export interface EvaluationHost {
  readonly deps: {
    readonly store: MailplaneStore;
    readonly clock: Clock;
    notify(store: MailplaneStore, notice: IncidentNotice): Promise<void>;
  };
  readonly nowHour: number;
  readonly run: { blocked: number };
  /** Opens the incident unless its topic is open (and tells people), running `then` in its transaction. */
  raise(
    incident: NewIncident,
    targets: Pick<IncidentNotice, 'emails' | 'slackUrl'>,
    then?: (tx: MailplaneStore) => Promise<void>,
  ): Promise<boolean>;
  viewOf(accountId: number): Promise<ProtectionView>;
  markCrossing(accountId: number, topic: string): void;
}

/** The protection's measurements of one evaluation run. */
export class ProtectionEvaluation {
  constructor(private readonly host: EvaluationHost) {}

  async evaluate(): Promise<void> {
    const { fromHour, toHour } = windowHoursAt(this.host.nowHour, PROTECTION_WINDOW_HOURS);
    const totals = await this.host.deps.store.reputation.totalsBySubAccount(fromHour, toHour, MIN_PROTECTION_VOLUME);
    for (const totalsOfSub of totals) {
      const view = await this.host.viewOf(totalsOfSub.accountId);
      const settings = protectionFor(view, totalsOfSub.subAccountId);
      if (!settings.enabled) continue;
      for (const [parameter, line] of [
        [AlertParameter.HardBounceRate, settings.hardBounceRate],
        [AlertParameter.SpamComplaintRate, settings.spamComplaintRate],
      ] as const) {
        const measured = measure(parameter, 'subAccount', totalsOfSub.counters, line.minProcessed);
        if (!measured) continue;
        if (line.block > 0 && measured.value >= line.block) {
          await this.block(totalsOfSub, parameter, line, measured, view.account);
        } else if (line.warn > 0 && measured.value >= line.warn) {
          await this.warn(totalsOfSub, parameter, line, measured, view.account);
        }
      }
    }
  }

  /** The incident of a protection line, without its topic and summary. */
  private protectionIncident(
    sub: SubAccountReputation,
    parameter: AlertParameter,
    threshold: number,
    measured: Measurement,
  ): Omit<NewIncident, 'topic' | 'summary'> {
    return {
      accountId: sub.accountId,
      alertId: null,
      entityType: 'subAccount',
      entityId: sub.subAccountId,
      parameter,
      provider: null,
      threshold,
      windowHours: PROTECTION_WINDOW_HOURS,
      measuredValue: measured.value,
      sampleSize: measured.sampleSize,
      started: nowNs(this.host.deps.clock),
    };
  }

  private async warn(
    sub: SubAccountReputation,
    parameter: AlertParameter,
    line: ProtectionLine,
    measured: Measurement,
    account: ProtectionSettings,
  ): Promise<void> {
    const record = await this.host.deps.store.subAccounts.get(sub.accountId, sub.subAccountId);
    if (!record || record.blocked) return;
    await this.host.raise(
      {
        ...this.protectionIncident(sub, parameter, line.warn, measured),
        topic: warnIncidentTopic(sub.subAccountId, parameter),
        summary: `Sub-account ${record.name}: ${describeMeasurement(parameter, 'subAccount', PROTECTION_WINDOW_HOURS, measured)} reached the warning line of ${line.warn} % (it is blocked at ${line.block} %)`,
      },
      account,
    );
  }

  /**
   * Blocks the sub-account, with an incident that says why. A sub-account already blocked (by
   * hand, or by an earlier run) is left as it is; after an operator's unblock, only the mail of the
   * hours that began after it counts, so the same bounces do not block it again at once.
   */
  private async block(
    sub: SubAccountReputation,
    parameter: AlertParameter,
    line: ProtectionLine,
    measured: Measurement,
    account: ProtectionSettings,
  ): Promise<void> {
    const { store, clock } = this.host.deps;
    const topic = blockIncidentTopic(sub.subAccountId);
    this.host.markCrossing(sub.accountId, topic);
    const record = await store.subAccounts.get(sub.accountId, sub.subAccountId);
    if (!record || record.blocked) return;
    const since = await this.hoursSinceUndo(sub.accountId, topic);
    if (since !== null) {
      const counters = await store.reputation.total(
        { accountId: sub.accountId, subAccountId: sub.subAccountId },
        since,
        this.host.nowHour,
      );
      const fresh = measure(parameter, 'subAccount', counters, line.minProcessed);
      if (!fresh || fresh.value < line.block) return;
      measured = fresh;
    }
    const reason = `${describeMeasurement(parameter, 'subAccount', PROTECTION_WINDOW_HOURS, measured)} reached the block line of ${line.block} %`;
    const at = nowNs(clock);
    const opened = await this.host.raise(
      {
        ...this.protectionIncident(sub, parameter, line.block, measured),
        topic,
        summary: `Sub-account ${record.name} blocked: ${reason}`,
      },
      account,
      async (tx) => {
        await tx.subAccounts.update(sub.accountId, sub.subAccountId, {
          blocked: true,
          blockedAt: at,
          blockReason: `blocked automatically: ${reason}`,
          updated: at,
        });
        const incident = await tx.incidents.findOpen(sub.accountId, topic);
        if (incident)
          await tx.incidents.addAction(sub.accountId, incident.id, {
            at,
            action: 'blocked',
            actor: 'mailplane',
            detail: `new sends are refused (SUBACCOUNT_BLOCKED) until the sub-account is unblocked`,
          });
        await this.closeWarnings(tx, sub, account, incident?.id);
      },
    );
    if (opened) this.host.run.blocked += 1;
  }

  /**
   * Resolves the sub-account's open warnings when it is blocked: the block says more (a warning
   * opened while the bounces were still coming in would otherwise stay open beside it).
   */
  private async closeWarnings(
    tx: MailplaneStore,
    sub: SubAccountReputation,
    account: ProtectionSettings,
    blockId: number | undefined,
  ): Promise<void> {
    for (const parameter of [AlertParameter.HardBounceRate, AlertParameter.SpamComplaintRate]) {
      const warning = await tx.incidents.findOpen(sub.accountId, warnIncidentTopic(sub.subAccountId, parameter));
      if (!warning) continue;
      const outcome = await tx.incidents.resolve(sub.accountId, warning.id, {
        at: nowNs(this.host.deps.clock),
        by: 'mailplane',
        detail: `the sub-account was blocked${blockId === undefined ? '' : ` (incident ${blockId})`}`,
      });
      if (outcome.ok) await this.host.deps.notify(tx, { incident: outcome.value, change: 'resolved', ...account });
    }
  }

  /** The first hour to count after the operator's last undo of `topic`, when it lies inside the window. */
  private async hoursSinceUndo(accountId: number, topic: string): Promise<number | null> {
    const last = await this.host.deps.store.incidents.lastResolved(accountId, topic);
    if (!last?.resolvedAt || last.resolvedBy !== 'operator') return null;
    const undoHour = hourOfMs(nsToMs(last.resolvedAt));
    return undoHour >= windowHoursAt(this.host.nowHour, PROTECTION_WINDOW_HOURS).fromHour ? undoHour + 1 : null;
  }
}
