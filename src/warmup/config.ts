import { DEFAULT_HOLD_THRESHOLDS, DEFAULT_WARMUP_PLAN, type HoldThresholds, type WarmupPlan } from './plan.js';

/** How warming IPs grow (`MailplaneOptions.warmup`). */
export interface WarmupConfig {
  /** Daily caps per stage (default {@link DEFAULT_WARMUP_PLAN}). */
  plan: WarmupPlan;
  /** When a provider's traffic holds its stage (default {@link DEFAULT_HOLD_THRESHOLDS}). */
  thresholds: HoldThresholds;
}

/** Fills the unset fields of a partial configuration with the defaults. */
export function resolveWarmupConfig(partial: Partial<WarmupConfig> = {}): WarmupConfig {
  return { plan: partial.plan ?? DEFAULT_WARMUP_PLAN, thresholds: partial.thresholds ?? DEFAULT_HOLD_THRESHOLDS };
}
