/** How incident notifications are sent (the `alerts` option of `createMailplane`). */
export interface AlertNotifyConfig {
  /**
   * The address notification emails come from, or `null` for none (the default): its domain must
   * be a verified sending domain of the incident's account, whose owning sub-account sends them.
   */
  from: string | null;
}

/** Fills the unset fields of the `alerts` option (already checked by src/options.ts). */
export function resolveAlertNotifyConfig(partial: Partial<AlertNotifyConfig> = {}): AlertNotifyConfig {
  return { from: partial.from ?? null };
}
