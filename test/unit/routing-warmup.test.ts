import { describe, expect, it } from 'vitest';
import { MailboxProvider as P } from '../../src/routing/providers.js';
import { EntityStatus } from '../../src/routing/strategies.js';
import {
  advanceWarmup,
  capFor,
  DEFAULT_WARMUP_PLAN,
  shouldHold,
  startWarmup,
  warmupState,
  type StageTraffic,
  type WarmupPlan,
} from '../../src/warmup/plan.js';
import { warmupStatus } from '../../src/routing/router.js';

const HOUR = 3_600_000;
const START = Date.UTC(2026, 0, 1);
const clean: StageTraffic = { sent: 1000, bounced: 5, deferred: 20 };
const cleanEverywhere = () => clean;

describe('warmup plan', () => {
  it('starts every provider at 50 a day and grows one stage per evaluated interval to unlimited', () => {
    let progress = startWarmup(START);
    expect(warmupState(DEFAULT_WARMUP_PLAN, progress, 24, START).caps).toEqual(new Array(12).fill(50));
    const seen: number[] = [];
    for (let day = 1; day <= 10; day++) {
      progress = advanceWarmup(DEFAULT_WARMUP_PLAN, progress, 24, START + day * 24 * HOUR, cleanEverywhere);
      seen.push(capFor(DEFAULT_WARMUP_PLAN, progress, P.Gmail));
    }
    expect(seen).toEqual([100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, Infinity]);
    expect(warmupState(DEFAULT_WARMUP_PLAN, progress, 24, START + 10 * 24 * HOUR).complete).toBe(true);
  });

  it('grows only at interval boundaries (warmupInterval hours), and only once per boundary', () => {
    const progress = startWarmup(START);
    expect(advanceWarmup(DEFAULT_WARMUP_PLAN, progress, 6, START + 6 * HOUR - 1, cleanEverywhere)).toBe(progress);
    const after = advanceWarmup(DEFAULT_WARMUP_PLAN, progress, 6, START + 6 * HOUR, cleanEverywhere);
    expect(capFor(DEFAULT_WARMUP_PLAN, after, P.Yahoo)).toBe(100);
    expect(advanceWarmup(DEFAULT_WARMUP_PLAN, after, 6, START + 11 * HOUR, cleanEverywhere)).toBe(after);
    expect(warmupState(DEFAULT_WARMUP_PLAN, after, 6, START + 7 * HOUR).nextBoundaryAtMs).toBe(START + 12 * HOUR);
  });

  it('counts boundaries missed while no job ran: the evaluation covers all of them', () => {
    const late = advanceWarmup(DEFAULT_WARMUP_PLAN, startWarmup(START), 24, START + 3 * 24 * HOUR + 5, cleanEverywhere);
    expect(late.evaluated).toBe(3);
    expect(capFor(DEFAULT_WARMUP_PLAN, late, P.Zoho)).toBe(500);
  });

  it('holds the stage of a provider that bounced or deferred too much, and grows the others', () => {
    let progress = advanceWarmup(DEFAULT_WARMUP_PLAN, startWarmup(START), 24, START + 24 * HOUR, cleanEverywhere);
    const bad = (provider: number): StageTraffic =>
      provider === P.Microsoft
        ? { sent: 100, bounced: 1, deferred: 30 }
        : provider === P.Yahoo
          ? { sent: 100, bounced: 9, deferred: 0 }
          : clean;
    progress = advanceWarmup(DEFAULT_WARMUP_PLAN, progress, 24, START + 48 * HOUR, bad);
    const state = warmupState(DEFAULT_WARMUP_PLAN, progress, 24, START + 48 * HOUR);
    expect(state.caps[P.Gmail]).toBe(200);
    expect(state.caps[P.Microsoft]).toBe(100);
    expect(state.caps[P.Yahoo]).toBe(100);
    // The next clean stage grows it again, one stage behind.
    progress = advanceWarmup(DEFAULT_WARMUP_PLAN, progress, 24, START + 72 * HOUR, cleanEverywhere);
    expect([
      capFor(DEFAULT_WARMUP_PLAN, progress, P.Gmail),
      capFor(DEFAULT_WARMUP_PLAN, progress, P.Microsoft),
    ]).toEqual([500, 200]);
  });

  it('judges by rates with a floor on evidence', () => {
    expect(shouldHold({ sent: 100, bounced: 5, deferred: 10 })).toBe(false);
    expect(shouldHold({ sent: 100, bounced: 6, deferred: 0 })).toBe(true);
    expect(shouldHold({ sent: 100, bounced: 0, deferred: 11 })).toBe(true);
    expect(shouldHold({ sent: 2, bounced: 2, deferred: 0 })).toBe(false);
    expect(shouldHold({ sent: 0, bounced: 0, deferred: 0 })).toBe(false);
    expect(
      shouldHold({ sent: 2, bounced: 2, deferred: 0 }, { maxBounceRate: 0.05, maxDeferralRate: 0.1, minProblems: 1 }),
    ).toBe(true);
  });

  it('supports stages per provider, and is not complete until every provider is past its last stage', () => {
    const plan: WarmupPlan = { stages: [10], providerStages: { [P.Microsoft]: [5, 20] } };
    let progress = startWarmup(START);
    expect([capFor(plan, progress, P.Gmail), capFor(plan, progress, P.Microsoft)]).toEqual([10, 5]);
    progress = advanceWarmup(plan, progress, 24, START + 24 * HOUR, cleanEverywhere);
    expect([capFor(plan, progress, P.Gmail), capFor(plan, progress, P.Microsoft)]).toEqual([Infinity, 20]);
    expect(warmupState(plan, progress, 24, START + 24 * HOUR).complete).toBe(false);
    progress = advanceWarmup(plan, progress, 24, START + 48 * HOUR, (p) =>
      p === P.Gmail ? { sent: 10, bounced: 10, deferred: 0 } : clean,
    );
    expect(warmupState(plan, progress, 24, START + 48 * HOUR).complete).toBe(true);
  });

  it("lets a warming IP send until today's count reaches the cap", () => {
    expect(warmupStatus(50, 49)).toBe(EntityStatus.Ready);
    expect(warmupStatus(50, 50)).toBe(EntityStatus.AtCap);
    expect(warmupStatus(Infinity, 1e9)).toBe(EntityStatus.Ready);
  });
});
