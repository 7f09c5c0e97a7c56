import { withDefaults } from '../model/defaults.js';

/** How mailplane delivers mail over SMTP. */
export interface DeliveryConfig {
  /** TCP port of recipients' MX hosts: 25 on the internet; a loopback sink's port in tests. */
  mxPort: number;
  /** Messages one delivery job hands to the transport at once (default 50). */
  concurrency: number;
  /** Messages per delivery page job: the unit several workers share a bulk send by (default 200). */
  pageSize: number;
  /**
   * Delays before each retry of a soft-bounced message, in milliseconds: one entry per retry.
   * Default: 10 min, 30 min, 2 h, 6 h, 15 h 20 min: 5 retries, the last one 24 h after the first attempt.
   */
  retryDelaysMs: readonly number[];
  /** How long a transport waits for a TCP connection (default 30 s). */
  connectionTimeoutMs: number;
  /** How long a transport waits for the greeting after connecting (default 30 s). */
  greetingTimeoutMs: number;
  /** How long a transport waits for any reply once connected (default 5 min, as RFC 5321 4.5.3.2 suggests). */
  socketTimeoutMs: number;
  /**
   * How long a message waits, without an attempt counted, when the transport made none because its
   * destination was busy or stalled (`DeliveryResult.notAttempted`; default 30 s, plus up to a
   * fifth more at random so the messages handed back together do not return together).
   */
  busyRetryDelayMs: number;
  /**
   * How long a message may stay in the queue (default 5 days, as Postfix's
   * `maximal_queue_lifetime`). Refusals before the message's own transaction and throttling replies
   * do not count as its retries; past this age they do, and the attempt that finds the message
   * older ends it (a soft bounce that runs out of retries).
   */
  queueLifetimeMs: number;
}

/** Defaults for delivery on the public internet. */
export const defaultDeliveryConfig: DeliveryConfig = {
  mxPort: 25,
  concurrency: 50,
  pageSize: 200,
  retryDelaysMs: [10, 30, 120, 360, 920].map((minutes) => minutes * 60_000),
  connectionTimeoutMs: 30_000,
  greetingTimeoutMs: 30_000,
  socketTimeoutMs: 300_000,
  busyRetryDelayMs: 30_000,
  queueLifetimeMs: 5 * 86_400_000,
};

/** Fills the unset fields of a partial configuration with {@link defaultDeliveryConfig}. */
export function resolveDeliveryConfig(partial: Partial<DeliveryConfig> = {}): DeliveryConfig {
  return withDefaults(defaultDeliveryConfig, partial);
}
