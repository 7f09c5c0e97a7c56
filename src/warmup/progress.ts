/**
 * A stored IP's warmup read as the plan's inputs: when it started, whether it runs, which interval
 * window a moment falls in, and its progress from the stored record. Pure functions of records.
 */
import type { IpRecord, WarmupProgressRecord } from '../store/index.js';
import { startWarmup, type WarmupProgress } from './plan.js';

/** Hours between stages when the IP is in no pool (the pools' default `warmupInterval`). */
export const DEFAULT_WARMUP_INTERVAL_HOURS = 24;

/** One hour in milliseconds: the shortest `warmupInterval`. */
export const HOUR_MS = 3_600_000;

/** Epoch milliseconds of an IP's warmup start. */
export function warmupStartMs(ip: Pick<IpRecord, 'warmupStartedAt'>): number {
  return Number(ip.warmupStartedAt / 1_000_000n);
}

/** True while the IP runs a warmup (Warming, or Paused in the middle of one). */
export function isWarmingUp(ip: IpRecord): boolean {
  return ip.autoWarmupEnabled && ip.warmupStartedAt !== 0n;
}

/** The interval window (boundaries passed since the start) that `nowMs` falls in. */
export function warmupWindow(startedAtMs: number, intervalHours: number, nowMs: number): number {
  return Math.max(0, Math.floor((nowMs - startedAtMs) / (intervalHours * HOUR_MS)));
}

/** The progress of the IP's current warmup from what is stored (a record of another warmup counts as none). */
export function progressOf(ip: IpRecord, stored: WarmupProgressRecord | undefined): WarmupProgress {
  const progress = startWarmup(warmupStartMs(ip));
  if (!stored || stored.startedAt !== ip.warmupStartedAt) return progress;
  const held = progress.held.map((_, provider) => stored.held[provider] ?? 0);
  return { startedAtMs: progress.startedAtMs, evaluated: stored.evaluated, held };
}
