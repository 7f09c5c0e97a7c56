/**
 * The IP warmup plan as pure functions: a daily volume cap per mailbox provider that grows one
 * stage every `warmupInterval` hours, except for a provider that bounced or deferred too much of
 * the last stage's mail, which keeps its stage. Storage, delivery's caps and the job that calls
 * `advanceWarmup` at each interval live beside it (service.ts, caps.ts, jobs.ts); everything
 * here takes explicit inputs.
 */
import { MAILBOX_PROVIDER_COUNT } from '../routing/providers.js';

/** Stages of daily caps; past the last stage the provider is unlimited. */
export interface WarmupPlan {
  /** Daily cap per provider at stage 0, 1, 2, ... */
  stages: readonly number[];
  /** Stages of particular providers (by id) that differ from `stages`. */
  providerStages?: Readonly<Partial<Record<number, readonly number[]>>>;
}

/**
 * The default plan: 50, 100, 200, 500, 1000, 2000, 5000, 10 000, 20 000 and 50 000 messages a day
 * per mailbox provider, then unlimited. With the default 24-hour interval a clean IP is warm in ten days.
 */
export const DEFAULT_WARMUP_PLAN: WarmupPlan = {
  stages: [50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000],
};

/** What is stored of a running warmup. */
export interface WarmupProgress {
  /** When the warmup started, epoch milliseconds. */
  startedAtMs: number;
  /** Interval boundaries evaluated so far by `advanceWarmup`: growth happens only there. */
  evaluated: number;
  /** Per provider id (0-11): how many of the evaluated boundaries held that provider at its stage. */
  held: readonly number[];
}

/** Traffic of one provider over the stage just ended (since the previous evaluation). */
export interface StageTraffic {
  /** Messages handed to the provider's servers (delivered, bounced or deferred). */
  sent: number;
  /** Hard and soft bounces. */
  bounced: number;
  /** Temporary failures (4xx) that deferred a message. */
  deferred: number;
}

/** When a provider's stage is held rather than grown. */
export interface HoldThresholds {
  /** Bounces over sent above this rate hold the stage. Default 0.05 (5 %). */
  maxBounceRate: number;
  /** Deferrals over sent above this rate hold the stage. Default 0.10 (10 %). */
  maxDeferralRate: number;
  /** Fewer bounces plus deferrals than this never hold (one bounce in three mails is noise). Default 3. */
  minProblems: number;
}

/** Defaults of {@link HoldThresholds}. */
export const DEFAULT_HOLD_THRESHOLDS: HoldThresholds = { maxBounceRate: 0.05, maxDeferralRate: 0.1, minProblems: 3 };

/** The state of a warmup at one moment. */
export interface WarmupState {
  /** Stage index per provider id (0-11). */
  stages: number[];
  /** Daily cap per provider id; `Infinity` once the provider is past the last stage. */
  caps: number[];
  /** Every provider is past its last stage: the warmup is over and the IP becomes Active. */
  complete: boolean;
  /** When the next interval boundary falls (epoch ms): the next evaluation is due then. */
  nextBoundaryAtMs: number;
}

const HOUR_MS = 3_600_000;

/** A warmup starting at `startedAtMs`: every provider at stage 0. */
export function startWarmup(startedAtMs: number): WarmupProgress {
  return { startedAtMs, evaluated: 0, held: new Array<number>(MAILBOX_PROVIDER_COUNT).fill(0) };
}

function stagesOf(plan: WarmupPlan, provider: number): readonly number[] {
  return plan.providerStages?.[provider] ?? plan.stages;
}

/** The provider's stage: one per evaluated boundary, minus the boundaries that held it. */
export function stageFor(progress: WarmupProgress, provider: number): number {
  return Math.max(0, progress.evaluated - (progress.held[provider] ?? 0));
}

/**
 * Today's cap for `provider`: the plan's cap at its stage, `Infinity` past the last one.
 *
 * @example
 * capFor(DEFAULT_WARMUP_PLAN, { startedAtMs: 0, evaluated: 2, held: [1] }, 0); // 100 (Gmail held once)
 */
export function capFor(plan: WarmupPlan, progress: WarmupProgress, provider: number): number {
  const stages = stagesOf(plan, provider);
  const stage = stageFor(progress, provider);
  return stage < stages.length ? stages[stage]! : Infinity;
}

/** Interval boundaries passed between the start and `nowMs`. */
export function boundariesPassed(progress: WarmupProgress, intervalHours: number, nowMs: number): number {
  return Math.max(0, Math.floor((nowMs - progress.startedAtMs) / (intervalHours * HOUR_MS)));
}

/** Stages, caps and completion of a warmup at `nowMs`, with `intervalHours` between stages. */
export function warmupState(
  plan: WarmupPlan,
  progress: WarmupProgress,
  intervalHours: number,
  nowMs: number,
): WarmupState {
  const stages: number[] = [];
  const caps: number[] = [];
  for (let provider = 0; provider < MAILBOX_PROVIDER_COUNT; provider++) {
    stages.push(stageFor(progress, provider));
    caps.push(capFor(plan, progress, provider));
  }
  const next = boundariesPassed(progress, intervalHours, nowMs) + 1;
  return {
    stages,
    caps,
    complete: caps.every((cap) => cap === Infinity),
    nextBoundaryAtMs: progress.startedAtMs + next * intervalHours * HOUR_MS,
  };
}

/** True when the traffic of the last stage says the provider is not ready for more volume. */
export function shouldHold(traffic: StageTraffic, thresholds: HoldThresholds = DEFAULT_HOLD_THRESHOLDS): boolean {
  if (traffic.sent <= 0 || traffic.bounced + traffic.deferred < thresholds.minProblems) return false;
  return (
    traffic.bounced / traffic.sent > thresholds.maxBounceRate ||
    traffic.deferred / traffic.sent > thresholds.maxDeferralRate
  );
}

/**
 * Evaluates the boundaries passed since the last evaluation: each provider grows by one stage per
 * boundary unless {@link shouldHold} says its traffic since then was bad, in which case it keeps
 * its stage for all of them (the traffic covers the whole time since the last evaluation). Returns
 * `progress` itself when no boundary has passed, so a job can run it as often as it likes.
 *
 * @example
 * const next = advanceWarmup(DEFAULT_WARMUP_PLAN, progress, 24, now, (provider) => trafficSince(provider));
 */
export function advanceWarmup(
  plan: WarmupPlan,
  progress: WarmupProgress,
  intervalHours: number,
  nowMs: number,
  trafficOf: (provider: number) => StageTraffic,
  thresholds: HoldThresholds = DEFAULT_HOLD_THRESHOLDS,
): WarmupProgress {
  const passed = boundariesPassed(progress, intervalHours, nowMs);
  const steps = passed - progress.evaluated;
  if (steps <= 0) return progress;
  const held: number[] = [];
  for (let provider = 0; provider < MAILBOX_PROVIDER_COUNT; provider++) {
    const before = progress.held[provider] ?? 0;
    const finished = stageFor(progress, provider) >= stagesOf(plan, provider).length;
    held.push(!finished && shouldHold(trafficOf(provider), thresholds) ? before + steps : before);
  }
  return { startedAtMs: progress.startedAtMs, evaluated: passed, held };
}
