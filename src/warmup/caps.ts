/**
 * Warmup caps at delivery. Each account's routing data carries, for its warming IPs, today's cap
 * per mailbox provider (from the stored progress) and today's sends: the stored count when the
 * table was loaded plus what this process has reserved since. That view only steers routing away
 * from IPs that look full; the cap itself is held by the store: choosing a warming IP reserves
 * one send there (`WarmupService.reserve`, `WarmupStore.reserveSend`, reserve-or-refuse in one
 * statement), so the messages of one page sent in parallel, and every node on one database
 * together, never pass a cap. A refused IP counts as full and the message is routed again.
 */
import type { Day } from '../model/dates.js';

/** A warming IP as routing sees it. */
export interface WarmingIp {
  startedAt: bigint;
  startedAtMs: number;
  intervalHours: number;
  /** Today's cap per provider id (`Infinity`: unlimited). */
  caps: number[];
}

/** The warmup caps and today's sends of one account's warming IPs. */
export interface WarmupCounts {
  /** The UTC day the counts are of: on another day they are stale (reload). */
  day: Day;
  warming: ReadonlyMap<number, WarmingIp>;
  /** Sends today per warming IP and provider: stored at load plus chosen by this process since. */
  used: Map<number, number[]>;
}

/** Which warmup, provider, day and interval window a warming IP's send counts in. */
export interface WarmupSend {
  /** The IP's `warmupStartedAt` (ns). */
  startedAt: bigint;
  /** Mailbox-provider id of the recipient. */
  provider: number;
  /** UTC day `YYYY-MM-DD` of the attempt. */
  day: string;
  /** Interval boundaries passed since the warmup started. */
  window: number;
  /** Set once the attempt's outcome is stored (with the reservation in it): nothing to give back. */
  recorded?: boolean;
}

/** Today's cap of a warming IP for `provider` and its sends so far; `null` when the IP is not warming. */
export function warmupUsage(
  counts: WarmupCounts,
  ipId: number,
  provider: number,
): { cap: number; sent: number } | null {
  const ip = counts.warming.get(ipId);
  if (!ip) return null;
  return { cap: ip.caps[provider] ?? Infinity, sent: counts.used.get(ipId)?.[provider] ?? 0 };
}
