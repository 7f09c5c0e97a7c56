/**
 * Warmup caps at delivery. Each account's routing data carries, for its warming IPs, today's cap
 * per mailbox provider (from the stored progress) and today's sends: the stored count when the
 * table was loaded plus what this process has chosen since. Choosing a warming IP reserves one
 * send at once (`WarmupService.reserve`), so the messages of one page sent in parallel never
 * overshoot a cap; a reservation stays counted until its outcome is stored (then the stored count
 * has it), so a reload in between does not forget it. Other processes' sends are seen at the next
 * reload (every job start and every 10 s): with several nodes a cap can be passed by what they
 * send between reloads.
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
}

/** Today's cap of a warming IP for `provider` and its sends so far; `null` when the IP is not warming. */
export function warmupUsage(counts: WarmupCounts, ipId: number, provider: number): { cap: number; sent: number } | null {
  const ip = counts.warming.get(ipId);
  if (!ip) return null;
  return { cap: ip.caps[provider] ?? Infinity, sent: counts.used.get(ipId)?.[provider] ?? 0 };
}
