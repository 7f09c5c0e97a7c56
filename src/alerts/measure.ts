/**
 * What a rule measures, from the reputation counters (src/store/reputation-store.ts): whose buckets,
 * over which hours, and the value a parameter takes on them.
 */
import type { AlertRecord, MailplaneStore, ReputationCounters, ReputationScope } from '../store/index.js';
import { AlertParameter } from '../store/index.js';
import { alertParameterOf, alertWindowWords } from './codes.js';

/** A parameter's value on a window's counters, and the volume it was measured on. */
export interface Measurement {
  value: number;
  sampleSize: number;
}

/**
 * The hours a window of `windowHours` reads at `nowMs`: the current (partial) hour and the
 * `windowHours` whole hours before it, so a window always holds at least its length of mail.
 */
export function windowHoursAt(nowHour: number, windowHours: number): { fromHour: number; toHour: number } {
  return { fromHour: nowHour - windowHours, toHour: nowHour };
}

/**
 * The buckets a rule reads: its entity's (a pool's member IPs as they are now), narrowed to its
 * provider; `null` when the entity no longer exists (a deleted pool).
 */
export async function scopeOfRule(store: MailplaneStore, rule: AlertRecord): Promise<ReputationScope | null> {
  const base: ReputationScope = {
    accountId: rule.accountId,
    ...(rule.provider !== null && { provider: rule.provider }),
  };
  switch (rule.entityType) {
    case 'account':
      return base;
    case 'subAccount':
      return { ...base, subAccountId: rule.entityId };
    case 'domain':
      return { ...base, domainId: rule.entityId };
    case 'ip':
      return { ...base, ipIds: [rule.entityId] };
    case 'ipPool': {
      const pool = await store.ipPools.get(rule.accountId, rule.entityId);
      return pool ? { ...base, ipIds: pool.ips.map((ip) => ip.id) } : null;
    }
  }
}

/** The counter each rate parameter divides by the volume. */
const NUMERATOR: Record<number, keyof ReputationCounters> = {
  [AlertParameter.HardBounceRate]: 'hardBounced',
  [AlertParameter.SoftBounceRate]: 'softBounced',
  [AlertParameter.SpamComplaintRate]: 'spam',
  [AlertParameter.UnsubscribeRate]: 'unsubscribed',
  [AlertParameter.DeliveryRate]: 'delivered',
  [AlertParameter.OpenRate]: 'opened',
  [AlertParameter.DroppedRate]: 'dropped',
};

/**
 * The value of `parameter` on `counters`: a rate in percent of the volume (rounded to 4 decimals),
 * or for volume the volume itself. The volume is the processed mail, except for an IP or a pool,
 * which never see mail at accept: there it is the mail whose delivery ended through them (`sent`).
 * `null` when the volume is under `minVolume` (a rate that does not count yet).
 */
export function measure(
  parameter: AlertParameter,
  entityType: AlertRecord['entityType'],
  counters: ReputationCounters,
  minVolume: number,
): Measurement | null {
  const volume = entityType === 'ip' || entityType === 'ipPool' ? counters.sent : counters.processed;
  if (parameter === AlertParameter.Volume) return { value: volume, sampleSize: volume };
  if (volume === 0 || volume < minVolume) return null;
  const numerator = counters[NUMERATOR[parameter]!];
  return { value: Math.round((numerator / volume) * 100 * 10_000) / 10_000, sampleSize: volume };
}

/**
 * Whether `value` is on the bad side of `threshold` for `parameter`: reaching the line for what
 * crosses above it, falling under it for what crosses below (delivery and open rates).
 */
export function crosses(parameter: AlertParameter, value: number, threshold: number): boolean {
  return alertParameterOf(parameter)?.crosses === 'below' ? value < threshold : value >= threshold;
}

/** "hard-bounce rate 12.5 % over 24 hours (400 processed)". */
export function describeMeasurement(
  parameter: AlertParameter,
  entityType: string,
  windowHours: number,
  m: Measurement,
): string {
  const info = alertParameterOf(parameter)!;
  const volume = entityType === 'ip' || entityType === 'ipPool' ? 'sent' : 'processed';
  const value = info.unit === 'percent' ? `${m.value} %` : `${m.value} messages`;
  return `${info.label} ${value} over ${alertWindowWords(windowHours)} (${m.sampleSize} ${volume})`;
}
