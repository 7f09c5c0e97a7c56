/**
 * Warmup caps at delivery. Each account's routing data carries, for its warming IPs, today's cap
 * per mailbox provider (from the stored progress) and today's sends: the stored count when the
 * table was loaded plus what this process has chosen since. Choosing a warming IP reserves one
 * send at once, so the messages of one page sent in parallel never overshoot a cap; a reservation
 * stays counted until its outcome is stored (then the stored count has it), so a reload in between
 * does not forget it. Other processes' sends are seen at the next reload (every job start and
 * every 10 s): with several nodes a cap can be passed by what they send between reloads.
 */
import type { MailplaneContext } from '../context.js';
import { dayOfMs, type Day } from '../model/dates.js';
import { DEFAULT_WARMUP_INTERVAL_HOURS, isWarmingUp, progressOf, warmupStartMs, warmupWindow } from '../ip/warmup.js';
import { MAILBOX_PROVIDER_COUNT } from '../routing/providers.js';
import { warmupState } from '../routing/warmup.js';
import type { IpPoolDetail } from '../store/index.js';
import type { DeliveryRoute, WarmupSend } from './transport.js';

/** A warming IP as routing sees it. */
interface WarmingIp {
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

/** Reservations not yet stored, per process (context), IP and provider. */
const pendingByContext = new WeakMap<MailplaneContext, Map<number, number[]>>();

function pendingOf(ctx: MailplaneContext): Map<number, number[]> {
  let pending = pendingByContext.get(ctx);
  if (!pending) pendingByContext.set(ctx, (pending = new Map()));
  return pending;
}

const zeros = () => new Array<number>(MAILBOX_PROVIDER_COUNT).fill(0);

/** Loads the caps and today's sends of the warming IPs among the account's pools. */
export async function loadWarmupCounts(ctx: MailplaneContext, details: readonly IpPoolDetail[]): Promise<WarmupCounts> {
  const nowMs = ctx.clock.now();
  const day = dayOfMs(nowMs);
  const members = details.flatMap((d) => d.ips.filter(isWarmingUp).map((ip) => ({ ip, intervalHours: d.pool.warmupInterval || DEFAULT_WARMUP_INTERVAL_HOURS })));
  const warming = new Map<number, WarmingIp>();
  const used = new Map<number, number[]>();
  if (members.length === 0) return { day, warming, used };
  const ids = members.map((m) => m.ip.id);
  const [stored, sends] = await Promise.all([ctx.store.warmup.progressOf(ids), ctx.store.warmup.sentOn(ids, day)]);
  const pending = pendingOf(ctx);
  for (const { ip, intervalHours } of members) {
    const progress = progressOf(ip, stored.find((s) => s.ipId === ip.id));
    const { caps } = warmupState(ctx.config.warmup.plan, progress, intervalHours, nowMs);
    warming.set(ip.id, { startedAt: ip.warmupStartedAt, startedAtMs: warmupStartMs(ip), intervalHours, caps });
    used.set(ip.id, [...(pending.get(ip.id) ?? zeros())]);
  }
  for (const row of sends) {
    const counts = used.get(row.ipId);
    if (counts && row.provider < MAILBOX_PROVIDER_COUNT) counts[row.provider]! += row.sent;
  }
  return { day, warming, used };
}

/** Today's cap of a warming IP for `provider` and its sends so far; `null` when the IP is not warming. */
export function warmupUsage(counts: WarmupCounts, ipId: number, provider: number): { cap: number; sent: number } | null {
  const ip = counts.warming.get(ipId);
  if (!ip) return null;
  return { cap: ip.caps[provider] ?? Infinity, sent: counts.used.get(ipId)?.[provider] ?? 0 };
}

/**
 * Reserves one send of a warming IP to `provider` (call it once the IP is chosen) and answers what
 * the outcome must store; `undefined` when the IP is not warming.
 */
export function reserveWarmupSend(ctx: MailplaneContext, counts: WarmupCounts, ipId: number, provider: number): WarmupSend | undefined {
  const ip = counts.warming.get(ipId);
  if (!ip) return undefined;
  const used = counts.used.get(ipId)!;
  used[provider]! += 1;
  const pending = pendingOf(ctx);
  let mine = pending.get(ipId);
  if (!mine) pending.set(ipId, (mine = zeros()));
  mine[provider]! += 1;
  const nowMs = ctx.clock.now();
  return { startedAt: ip.startedAt, provider, day: dayOfMs(nowMs), window: warmupWindow(ip.startedAtMs, ip.intervalHours, nowMs) };
}

/** Ends a reservation of {@link reserveWarmupSend} once its outcome is stored (or was not, on failure). */
export function releaseWarmupSend(ctx: MailplaneContext, route: DeliveryRoute): void {
  if (!route.warmup || route.ipId === null) return;
  const mine = pendingOf(ctx).get(route.ipId);
  if (mine && mine[route.warmup.provider]! > 0) mine[route.warmup.provider]! -= 1;
}
