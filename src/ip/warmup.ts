/**
 * IP warmup over storage: the plan of src/routing/warmup.ts applied to stored progress and
 * traffic. One durable job per warmup evaluates it at each interval boundary (src/ip/warmup-jobs.ts);
 * delivery applies the caps (src/delivery/warmup-caps.ts); the IP resource shows the state.
 * See docs/routing.md, "Warmup plan".
 */
import type { MailplaneContext } from '../context.js';
import { IP_WARMUP_JOB, type MailplaneJobs } from '../jobs/kinds.js';
import type { EnqueueJob } from '../jobs/queue.js';
import { dayOfMs } from '../model/dates.js';
import { nowNs } from '../model/time.js';
import { MAILBOX_PROVIDER_COUNT } from '../routing/providers.js';
import {
  advanceWarmup,
  DEFAULT_HOLD_THRESHOLDS,
  DEFAULT_WARMUP_PLAN,
  startWarmup,
  warmupState,
  type HoldThresholds,
  type StageTraffic,
  type WarmupPlan,
  type WarmupProgress,
  type WarmupState,
} from '../routing/warmup.js';
import { IpState } from '../store/ip-pool-store.js';
import type { IpRecord, MailplaneStore, WarmupProgressRecord } from '../store/index.js';

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

/** Hours between stages when the IP is in no pool (the pools' default `warmupInterval`). */
export const DEFAULT_WARMUP_INTERVAL_HOURS = 24;

const HOUR_MS = 3_600_000;

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

/** The job that evaluates the IP's current warmup, due at `runAt` (epoch ms); one per warmup. */
export function warmupJob(ip: IpRecord, runAt: number): EnqueueJob<MailplaneJobs> {
  const payload = { accountId: ip.accountId, ipId: ip.id, startedAt: String(ip.warmupStartedAt) };
  return { kind: IP_WARMUP_JOB, payload, runAt, dedupeKey: `${IP_WARMUP_JOB}:${ip.id}:${ip.warmupStartedAt}` };
}

/**
 * Enqueues the evaluation job of a warmup that has just started, an hour in (the shortest
 * `warmupInterval`): the job reads the pool's interval when it runs and moves itself to the first
 * real boundary, so a short interval is never evaluated late. Call `ctx.jobs.notify()` after
 * `store` commits.
 */
export async function scheduleWarmup(ctx: MailplaneContext, ips: readonly IpRecord[], store?: MailplaneStore): Promise<void> {
  const jobs = ips.filter(isWarmingUp).map((ip) => warmupJob(ip, warmupStartMs(ip) + HOUR_MS));
  if (jobs.length > 0) await ctx.jobs.enqueue(jobs, store ? { store } : {});
}

/** `warmupInterval` of the pool each IP belongs to (IPs in no pool: the default). */
export async function warmupIntervals(ctx: MailplaneContext, accountId: number): Promise<Map<number, number>> {
  const intervals = new Map<number, number>();
  for (let offset = 0; ; offset += 1000) {
    const pools = await ctx.store.ipPools.list(accountId, { limit: 1000, offset });
    for (const detail of pools) for (const ip of detail.ips) intervals.set(ip.id, detail.pool.warmupInterval);
    if (pools.length < 1000) return intervals;
  }
}

/** What {@link evaluateWarmup} did. */
export type WarmupEvaluation =
  /** The IP no longer runs this warmup (deleted, switched off, restarted). */
  | { kind: 'gone' }
  /** Every provider is past its last stage: the IP is Active now. */
  | { kind: 'complete' }
  /** Evaluated up to now; the next boundary falls at `nextAtMs`. */
  | { kind: 'running'; nextAtMs: number; state: WarmupState };

/**
 * Evaluates the boundaries of the IP's warmup passed since the last evaluation, from the traffic of
 * each provider in those windows, and saves the result (compare-and-set: a concurrent evaluation of
 * the same boundary is stored once). Ends the warmup when it is complete.
 */
export async function evaluateWarmup(ctx: MailplaneContext, accountId: number, ipId: number, startedAt: bigint): Promise<WarmupEvaluation> {
  const ip = await ctx.store.ips.get(accountId, ipId);
  if (!ip || !isWarmingUp(ip) || ip.warmupStartedAt !== startedAt) return { kind: 'gone' };
  const { plan, thresholds } = ctx.config.warmup;
  const interval = (await warmupIntervals(ctx, accountId)).get(ip.id) ?? DEFAULT_WARMUP_INTERVAL_HOURS;
  const [stored] = await ctx.store.warmup.progressOf([ip.id]);
  const before = progressOf(ip, stored);
  const nowMs = ctx.clock.now();
  const passed = warmupWindow(before.startedAtMs, interval, nowMs);
  const traffic = new Map<number, StageTraffic>();
  if (passed > before.evaluated) {
    for (const row of await ctx.store.warmup.trafficBetween(ip.id, ip.warmupStartedAt, before.evaluated, passed)) traffic.set(row.provider, row);
  }
  const none: StageTraffic = { sent: 0, bounced: 0, deferred: 0 };
  const after = advanceWarmup(plan, before, interval, nowMs, (provider) => traffic.get(provider) ?? none, thresholds);
  if (after !== before) {
    const record = { ipId: ip.id, startedAt: ip.warmupStartedAt, evaluated: after.evaluated, held: [...after.held], updated: nowNs(ctx.clock) };
    if (await ctx.store.warmup.saveProgress(record, before.evaluated)) {
      ctx.logger.info('warmup: evaluated', { accountId, ipId: ip.id, evaluated: after.evaluated, held: after.held });
    }
    await ctx.store.warmup.prune(ip.id, dayOfMs(nowMs - 2 * 86_400_000), ip.warmupStartedAt);
  }
  const state = warmupState(plan, after, interval, nowMs);
  if (state.complete) {
    // The warmup is over: the IP sends without limits. A paused IP stays paused.
    await ctx.store.ips.update(accountId, ip.id, {
      warmupStartedAt: 0n,
      state: ip.state === IpState.Paused ? IpState.Paused : IpState.Active,
      updated: nowNs(ctx.clock),
    });
    ctx.logger.info('warmup: complete, the IP is Active', { accountId, ipId: ip.id });
    return { kind: 'complete' };
  }
  return { kind: 'running', nextAtMs: state.nextBoundaryAtMs, state };
}

/** The warmup of one IP as the API shows it. */
export interface IpWarmupView {
  /** The lowest stage among providers; the plan's length once every provider is past its last stage. */
  stage: number;
  intervalHours: number;
  state: WarmupState;
  /** Today's sends per provider id. */
  sentToday: number[];
  startedAt: bigint;
  updated: bigint;
}

/** The warmup views of those `ips` that run a warmup, by IP id. */
export async function warmupViews(ctx: MailplaneContext, accountId: number, ips: readonly IpRecord[]): Promise<Map<number, IpWarmupView>> {
  const views = new Map<number, IpWarmupView>();
  const warming = ips.filter(isWarmingUp);
  if (warming.length === 0) return views;
  const ids = warming.map((ip) => ip.id);
  const nowMs = ctx.clock.now();
  const [intervals, stored, sends] = await Promise.all([
    warmupIntervals(ctx, accountId),
    ctx.store.warmup.progressOf(ids),
    ctx.store.warmup.sentOn(ids, dayOfMs(nowMs)),
  ]);
  for (const ip of warming) {
    const record = stored.find((s) => s.ipId === ip.id);
    const progress = progressOf(ip, record);
    const intervalHours = intervals.get(ip.id) ?? DEFAULT_WARMUP_INTERVAL_HOURS;
    const state = warmupState(ctx.config.warmup.plan, progress, intervalHours, nowMs);
    const sentToday = new Array<number>(MAILBOX_PROVIDER_COUNT).fill(0);
    for (const row of sends) if (row.ipId === ip.id && row.provider < MAILBOX_PROVIDER_COUNT) sentToday[row.provider] = row.sent;
    const updated = record && record.startedAt === ip.warmupStartedAt ? record.updated : ip.warmupStartedAt;
    const planLength = ctx.config.warmup.plan.stages.length;
    const stage = Math.min(planLength, ...state.stages);
    views.set(ip.id, { stage, intervalHours, state, sentToday, startedAt: ip.warmupStartedAt, updated });
  }
  return views;
}
