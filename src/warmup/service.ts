/**
 * IP warmup over storage, one service per mailplane instance: the plan of plan.ts applied to stored
 * progress and traffic. One durable job per warmup evaluates it at each interval boundary
 * (jobs.ts, {@link WarmupService.evaluate}); delivery reads the caps and reserves sends
 * ({@link WarmupService.loadCounts}, caps.ts); the IP resource shows the state
 * ({@link WarmupService.views}). See docs/routing.md, "Warmup plan".
 */
import type { MailplaneJobs } from '../jobs/kinds.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Logger } from '../logging/logger.js';
import { dayOfMs } from '../model/dates.js';
import { nowNs, type Clock } from '../model/time.js';
import { MAILBOX_PROVIDER_COUNT } from '../routing/providers.js';
import { IpState } from '../store/ip-pool-store.js';
import type { IpPoolDetail, IpRecord, MailplaneStore } from '../store/index.js';
import type { WarmingIp, WarmupCounts, WarmupSend } from './caps.js';
import type { WarmupConfig } from './config.js';
import { warmupJob } from './jobs.js';
import { advanceWarmup, warmupState, type StageTraffic, type WarmupState } from './plan.js';
import {
  DEFAULT_WARMUP_INTERVAL_HOURS,
  HOUR_MS,
  isWarmingUp,
  progressOf,
  warmupStartMs,
  warmupWindow,
} from './progress.js';

/** What {@link WarmupService.evaluate} did. */
export type WarmupEvaluation =
  /** The IP no longer runs this warmup (deleted, switched off, restarted). */
  | { kind: 'gone' }
  /** Every provider is past its last stage: the IP is Active now. */
  | { kind: 'complete' }
  /** Evaluated up to now; the next boundary falls at `nextAtMs`. */
  | { kind: 'running'; nextAtMs: number; state: WarmupState };

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

/** What the warmup service works with. */
export interface WarmupServiceDeps {
  readonly store: MailplaneStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly jobs: JobQueue<MailplaneJobs>;
  readonly config: WarmupConfig;
}

const zeros = () => new Array<number>(MAILBOX_PROVIDER_COUNT).fill(0);

/**
 * The warmup of an instance's IPs. Sends are reserved in the store as IPs are chosen
 * ({@link WarmupService.reserve}), so every node on one database counts against the same caps.
 * Built once by `createMailplane` (`context.warmup`); `mailplane.close()` closes it.
 */
export class WarmupService {
  constructor(private readonly deps: WarmupServiceDeps) {}

  /**
   * Enqueues the evaluation job of a warmup that has just started, an hour in (the shortest
   * `warmupInterval`): the job reads the pool's interval when it runs and moves itself to the first
   * real boundary, so a short interval is never evaluated late. Pass `store` to write inside a
   * transaction, then call `jobs.notify()` after it commits.
   */
  async schedule(ips: readonly IpRecord[], store?: MailplaneStore): Promise<void> {
    const jobs = ips.filter(isWarmingUp).map((ip) => warmupJob(ip, warmupStartMs(ip) + HOUR_MS));
    if (jobs.length > 0) await this.deps.jobs.enqueue(jobs, store ? { store } : {});
  }

  /** `warmupInterval` of the pool each IP belongs to (IPs in no pool: the default). */
  async intervals(accountId: number): Promise<Map<number, number>> {
    const intervals = new Map<number, number>();
    for (let offset = 0; ; offset += 1000) {
      const pools = await this.deps.store.ipPools.list(accountId, { limit: 1000, offset });
      for (const detail of pools) for (const ip of detail.ips) intervals.set(ip.id, detail.pool.warmupInterval);
      if (pools.length < 1000) return intervals;
    }
  }

  /**
   * Evaluates the boundaries of the IP's warmup passed since the last evaluation, from the traffic
   * of each provider in those windows, and saves the result (compare-and-set: a concurrent
   * evaluation of the same boundary is stored once). Ends the warmup when it is complete.
   */
  async evaluate(accountId: number, ipId: number, startedAt: bigint): Promise<WarmupEvaluation> {
    const { store, clock, logger, config } = this.deps;
    const ip = await store.ips.get(accountId, ipId);
    if (!ip || !isWarmingUp(ip) || ip.warmupStartedAt !== startedAt) return { kind: 'gone' };
    const { plan, thresholds } = config;
    const interval = (await this.intervals(accountId)).get(ip.id) ?? DEFAULT_WARMUP_INTERVAL_HOURS;
    const [stored] = await store.warmup.progressOf([ip.id]);
    const before = progressOf(ip, stored);
    const nowMs = clock.now();
    const passed = warmupWindow(before.startedAtMs, interval, nowMs);
    const traffic = new Map<number, StageTraffic>();
    if (passed > before.evaluated) {
      for (const row of await store.warmup.trafficBetween(ip.id, ip.warmupStartedAt, before.evaluated, passed))
        traffic.set(row.provider, row);
    }
    const none: StageTraffic = { sent: 0, bounced: 0, deferred: 0 };
    const after = advanceWarmup(plan, before, interval, nowMs, (provider) => traffic.get(provider) ?? none, thresholds);
    if (after !== before) {
      const record = {
        ipId: ip.id,
        startedAt: ip.warmupStartedAt,
        evaluated: after.evaluated,
        held: [...after.held],
        updated: nowNs(clock),
      };
      if (await store.warmup.saveProgress(record, before.evaluated)) {
        logger.info('warmup: evaluated', { accountId, ipId: ip.id, evaluated: after.evaluated, held: after.held });
      }
      await store.warmup.prune(ip.id, dayOfMs(nowMs - 2 * 86_400_000), ip.warmupStartedAt);
    }
    const state = warmupState(plan, after, interval, nowMs);
    if (state.complete) {
      // The warmup is over: the IP sends without limits. A paused IP stays paused.
      await store.ips.update(accountId, ip.id, {
        warmupStartedAt: 0n,
        state: ip.state === IpState.Paused ? IpState.Paused : IpState.Active,
        updated: nowNs(clock),
      });
      logger.info('warmup: complete, the IP is Active', { accountId, ipId: ip.id });
      return { kind: 'complete' };
    }
    return { kind: 'running', nextAtMs: state.nextBoundaryAtMs, state };
  }

  /** The warmup views of those `ips` that run a warmup, by IP id. */
  async views(accountId: number, ips: readonly IpRecord[]): Promise<Map<number, IpWarmupView>> {
    const { store, clock, config } = this.deps;
    const views = new Map<number, IpWarmupView>();
    const warming = ips.filter(isWarmingUp);
    if (warming.length === 0) return views;
    const ids = warming.map((ip) => ip.id);
    const nowMs = clock.now();
    const [intervals, stored, sends] = await Promise.all([
      this.intervals(accountId),
      store.warmup.progressOf(ids),
      store.warmup.sentOn(ids, dayOfMs(nowMs)),
    ]);
    for (const ip of warming) {
      const record = stored.find((s) => s.ipId === ip.id);
      const progress = progressOf(ip, record);
      const intervalHours = intervals.get(ip.id) ?? DEFAULT_WARMUP_INTERVAL_HOURS;
      const state = warmupState(config.plan, progress, intervalHours, nowMs);
      const sentToday = zeros();
      for (const row of sends)
        if (row.ipId === ip.id && row.provider < MAILBOX_PROVIDER_COUNT) sentToday[row.provider] = row.sent;
      const updated = record && record.startedAt === ip.warmupStartedAt ? record.updated : ip.warmupStartedAt;
      const stage = Math.min(config.plan.stages.length, ...state.stages);
      views.set(ip.id, { stage, intervalHours, state, sentToday, startedAt: ip.warmupStartedAt, updated });
    }
    return views;
  }

  /** Loads the caps and today's sends (stored, reservations included) of the warming IPs among the account's pools. */
  async loadCounts(details: readonly IpPoolDetail[]): Promise<WarmupCounts> {
    const { store, clock, config } = this.deps;
    const nowMs = clock.now();
    const day = dayOfMs(nowMs);
    const members = details.flatMap((d) =>
      d.ips
        .filter(isWarmingUp)
        .map((ip) => ({ ip, intervalHours: d.pool.warmupInterval || DEFAULT_WARMUP_INTERVAL_HOURS })),
    );
    const warming = new Map<number, WarmingIp>();
    const used = new Map<number, number[]>();
    if (members.length === 0) return { day, warming, used };
    const ids = members.map((m) => m.ip.id);
    const [stored, sends] = await Promise.all([store.warmup.progressOf(ids), store.warmup.sentOn(ids, day)]);
    for (const { ip, intervalHours } of members) {
      const progress = progressOf(
        ip,
        stored.find((s) => s.ipId === ip.id),
      );
      const { caps } = warmupState(config.plan, progress, intervalHours, nowMs);
      warming.set(ip.id, { startedAt: ip.warmupStartedAt, startedAtMs: warmupStartMs(ip), intervalHours, caps });
      used.set(ip.id, zeros());
    }
    for (const row of sends) {
      const counts = used.get(row.ipId);
      if (counts && row.provider < MAILBOX_PROVIDER_COUNT) counts[row.provider]! += row.sent;
    }
    return { day, warming, used };
  }

  /**
   * Reserves one send of a warming IP to `provider` in the store (reserve-or-refuse, atomic across
   * every node on the database: call it once the IP is chosen) and answers what the outcome must
   * store; `undefined` when the IP is not warming, `null` when today's cap is reached (other nodes'
   * sends included): `counts` then holds the IP as full, and the caller routes again.
   */
  async reserve(counts: WarmupCounts, ipId: number, provider: number): Promise<WarmupSend | undefined | null> {
    const ip = counts.warming.get(ipId);
    if (!ip) return undefined;
    const nowMs = this.deps.clock.now();
    const day = dayOfMs(nowMs);
    const cap = ip.caps[provider] ?? Infinity;
    const used = counts.used.get(ipId)!;
    if (!(await this.deps.store.warmup.reserveSend({ ipId, day, provider }, cap))) {
      used[provider] = Math.max(used[provider]!, cap);
      return null;
    }
    used[provider]! += 1;
    return { startedAt: ip.startedAt, provider, day, window: warmupWindow(ip.startedAtMs, ip.intervalHours, nowMs) };
  }

  /**
   * Ends a reservation of {@link reserve}: its outcome counted it (`recorded`), or the attempt was
   * not recorded (handed back, storage failed, the message had moved on) and the send is given
   * back, as the attempt that is made again reserves anew. A failure to give it back leaves the
   * IP one send short today, never over its cap.
   */
  async release(ipId: number | null, send: WarmupSend | undefined): Promise<void> {
    if (!send || ipId === null || send.recorded) return;
    await this.deps.store.warmup
      .returnSend({ ipId, day: send.day, provider: send.provider })
      .catch((error: unknown) => {
        this.deps.logger.warn('warmup: a reserved send could not be given back', {
          ipId,
          error: error instanceof Error ? error.message : String(error),
        });
      });
  }

  /** Nothing is held in memory any more (reservations live in the store); kept for `mailplane.close()`. */
  close(): void {}
}
