/** How mailplane delivers webhook events. */
export interface WebhookDeliveryConfig {
  /**
   * Allow deliveries to loopback, private, link-local, unspecified and reserved addresses
   * (development and private networks; `src/webhook/target.ts`). Default `false`: such targets,
   * whether written literally or resolved from a name at delivery time, are refused.
   */
  allowPrivateTargets: boolean;
  /** How long one POST may take, connection and response included (default 10 s). */
  timeoutMs: number;
  /** POSTs one process makes at once (default 8). */
  concurrency: number;
  /**
   * Delays before each retry of a failed POST, in milliseconds: one entry per retry. Default: 1, 5
   * and 15 minutes, 1, 3, 6 and 14 hours: 8 attempts, the last one about 24 hours after the first.
   */
  retryDelaysMs: readonly number[];
  /** A webhook whose attempts have all failed for this long (no success in between) is disabled (default 5 days). */
  disableAfterMs: number;
  /** How long the previous secret keeps signing after a rotation (default 24 hours). */
  rotationOverlapMs: number;
  /** Stored events one replay job posts before it hands over to the next (default 100). */
  replayBatchSize: number;
  /** Replays one webhook may start per clock hour (default 5; one runs at a time). */
  replaysPerHour: number;
}

/** Defaults for webhooks on the public internet. */
export const defaultWebhookDeliveryConfig: WebhookDeliveryConfig = {
  allowPrivateTargets: false,
  timeoutMs: 10_000,
  concurrency: 8,
  retryDelaysMs: [1, 5, 15, 60, 180, 360, 840].map((minutes) => minutes * 60_000),
  disableAfterMs: 5 * 86_400_000,
  rotationOverlapMs: 86_400_000,
  replayBatchSize: 100,
  replaysPerHour: 5,
};

/** Fills the unset fields of a partial configuration with {@link defaultWebhookDeliveryConfig}. */
export function resolveWebhookDeliveryConfig(partial: Partial<WebhookDeliveryConfig> = {}): WebhookDeliveryConfig {
  const defined = Object.fromEntries(Object.entries(partial).filter(([, value]) => value !== undefined));
  return { ...defaultWebhookDeliveryConfig, ...defined };
}
