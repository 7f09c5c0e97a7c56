import { withDefaults } from '../model/defaults.js';

/** How mailplane delivers webhook events. */
export interface WebhookDeliveryConfig {
  /**
   * Allow deliveries to loopback, private, link-local, unspecified and reserved addresses
   * (development and private networks; `src/webhook/target.ts`). Default `false`: such targets,
   * whether written literally or resolved from a name at delivery time, are refused.
   */
  allowPrivateTargets: boolean;
  /**
   * How long one POST may wait for the receiver's status line and headers, counted from the start of
   * the request, connection included (default 10 s). The status decides: a 2xx is a delivery.
   */
  timeoutMs: number;
  /**
   * How long a new connection may take to be ready for the request: TCP connect, and the TLS
   * handshake for `https` (default 5 s). Waiting for a free kept-alive connection counts too.
   */
  connectTimeoutMs: number;
  /**
   * How long the answer's body (at most 64 KiB of it) is read after its headers, only so the
   * kept-alive connection can carry the next POST (default 2 s). The attempt is decided by then;
   * a body still arriving is cut off and its connection destroyed.
   */
  bodyTimeoutMs: number;
  /** POSTs one job makes at once (default 8); the caps below bound what it makes to one webhook or account. */
  concurrency: number;
  /**
   * POSTs one webhook may have under way at once in this instance, over all jobs (default 2). A job
   * that finds the webhook (or its account, below) at its cap does not wait: its events for that
   * webhook go into a new job due `busyDelayMs` later, and a retry or replay job is put off as long,
   * neither counted as a failed attempt. So a receiver that hangs holds at most this many job
   * slots, and the other webhooks' events, of its account too, go out at once.
   */
  maxConcurrentPerWebhook: number;
  /** POSTs one account's webhooks may have under way at once in this instance (default 8): an account whose receivers all hang holds at most this many. */
  maxConcurrentPerAccount: number;
  /** How long the posts of a webhook or account at its cap are put off (default 5 s). */
  busyDelayMs: number;
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
  connectTimeoutMs: 5_000,
  bodyTimeoutMs: 2_000,
  concurrency: 8,
  maxConcurrentPerWebhook: 2,
  maxConcurrentPerAccount: 8,
  busyDelayMs: 5_000,
  retryDelaysMs: [1, 5, 15, 60, 180, 360, 840].map((minutes) => minutes * 60_000),
  disableAfterMs: 5 * 86_400_000,
  rotationOverlapMs: 86_400_000,
  replayBatchSize: 100,
  replaysPerHour: 5,
};

/** Fills the unset fields of a partial configuration with {@link defaultWebhookDeliveryConfig}. */
export function resolveWebhookDeliveryConfig(partial: Partial<WebhookDeliveryConfig> = {}): WebhookDeliveryConfig {
  return withDefaults(defaultWebhookDeliveryConfig, partial);
}
