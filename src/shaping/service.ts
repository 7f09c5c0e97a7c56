/**
 * Traffic shaping at delivery, for one mailplane instance: which limits hold for a source ×
 * destination (the default table, the configuration's rules, then the account's own), admission of
 * each message against them in the store (so they hold for the cluster), and what a throttling or
 * blocking reply does to the source (throttle-replies.ts): slow down, suspend, or nothing.
 * DeliveryRouting (src/delivery/route.ts) asks it for every attempt; docs/shaping.md explains it.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logging/logger.js';
import type { MailplaneMetrics } from '../metrics/metrics.js';
import type { Clock } from '../model/time.js';
import type { MailboxProvider } from '../routing/providers.js';
import type { ConnectionGate } from './connection-gate.js';
import type { MailplaneStore, ShapingAdmission } from '../store/index.js';
import { DEFAULT_SHAPING_RULES } from './defaults.js';
import {
  isLimited,
  ShapingRuleSet,
  type Destination,
  type ResolvedShaping,
  type ShapingRule,
  type Source,
} from './rules.js';
import { throttleActionFor, type ReplySeen, type ThrottleAction } from './throttle-replies.js';
import { SourcePauseWatch, type SourcePauseListener } from './source-pauses.js';
import { withDefaults } from '../model/defaults.js';

/** How shaping behaves (`MailplaneOptions.shaping`); every field has a default. */
export interface ShapingConfig {
  /** Rules over the default table (docs/shaping.md); an account's own rules come on top. */
  rules: readonly ShapingRule[];
  /** Whether the built-in table (defaults.ts) applies under `rules` (default true). */
  defaultRules: boolean;
  /** How long a message waits after a slow-down reply before it is tried again (default 30 s). */
  throttleWaitMs: number;
  /** How long a slowed source stays quiet before its factor steps up again (default 60 s). */
  quietPeriodMs: number;
  /** The factor's step up after each quiet period (default 1.5: half, three quarters, full). */
  recoveryStep: number;
  /** The least share of a rule's rate a source is slowed to (default 1/16). */
  minFactor: number;
  /** Slow-down replies within this time of the last one count once (default 5 s): they answered messages already in flight. */
  slowDownGapMs: number;
  /** How long a destination with neither rate nor connection cap is paused by a slow-down reply (default 60 s). */
  unlimitedPauseMs: number;
  /** How long a message in flight counts for a node that never reports its end (default 10 min). */
  leaseMs: number;
  /** How long an account's rules and the list of suspended keys are kept in memory (default 5 s). */
  cacheMs: number;
}

/** The suffix of a key's count of open connections (see {@link TrafficShaping.connectionGate}). */
export const CONNECTIONS_SUFFIX = '#connections';

/** Defaults of {@link ShapingConfig}. */
export const defaultShapingConfig: ShapingConfig = {
  rules: [],
  defaultRules: true,
  throttleWaitMs: 30_000,
  quietPeriodMs: 60_000,
  recoveryStep: 1.5,
  minFactor: 1 / 16,
  slowDownGapMs: 5_000,
  unlimitedPauseMs: 60_000,
  leaseMs: 600_000,
  cacheMs: 5_000,
};

/** Fills the unset fields of a partial configuration. */
export function resolveShapingConfig(partial: Partial<ShapingConfig> = {}): ShapingConfig {
  return withDefaults(defaultShapingConfig, partial);
}

/** What the shaping service works with. */
export interface TrafficShapingDeps {
  readonly store: MailplaneStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly config: ShapingConfig;
  /** Where push-backs and waits are counted (`mailplane_shaping_*_total`). */
  readonly metrics?: Pick<MailplaneMetrics, 'shapingPushBacks' | 'shapingWaits'>;
  /** Who records blocklist pauses and their end (the reputation guard's incidents); none: only the state says. */
  readonly pauses?: SourcePauseListener;
}

/** The shaping of one attempt that was admitted: kept on the route, ended by {@link TrafficShaping.release}. */
export interface AdmittedShaping extends ResolvedShaping {
  accountId: number;
  provider: MailboxProvider;
  /** The share of the limits in force when it was admitted. */
  factor: number;
  /** Whether the store counts it in flight (limited keys only). */
  counted: boolean;
}

/** What a reply asks of the message that got it, once the source was told. */
export type ReplyVerdict =
  /** Not a throttle: the reply decides the message's outcome as usual. */
  | { kind: 'none' }
  /** A throttle or block of the source: the message waits until `retryAt` without an attempt counted. */
  | { kind: 'wait'; retryAt: number; action: ThrottleAction }
  /** The table says the message itself was refused (content): the reply decides, as usual. */
  | { kind: 'bounce'; action: ThrottleAction };

/** Traffic shaping of one instance. */
export class TrafficShaping {
  /** Names this node's messages in flight in the store. */
  readonly holder = `node-${randomUUID()}`;
  private readonly base: readonly (readonly ShapingRule[])[];
  private readonly accounts = new Map<number, { rules: ShapingRuleSet; loadedAt: number }>();
  private suspendedKeys = new Map<string, number>();
  private suspendedLoadedAt = -Infinity;
  private readonly pauseWatch: SourcePauseWatch;

  constructor(private readonly deps: TrafficShapingDeps) {
    this.base = deps.config.defaultRules ? [DEFAULT_SHAPING_RULES, deps.config.rules] : [deps.config.rules];
    this.pauseWatch = new SourcePauseWatch(deps.pauses, deps.logger);
  }

  /** The built-in table and the configuration's rules, as the API shows them. */
  baseRules(): readonly ShapingRule[] {
    return this.base.flat();
  }

  /** The limits and state key of `source` to `destination` for an account's mail. */
  async resolve(accountId: number, source: Source, destination: Destination): Promise<ResolvedShaping> {
    return (await this.rulesOf(accountId)).resolve(source, destination);
  }

  /** Forgets an account's rules (they changed through the API on this node; other nodes reload within `cacheMs`). */
  forget(accountId: number): void {
    this.accounts.delete(accountId);
  }

  /**
   * Asks to send one message now. A key with neither rate nor connection cap is answered from
   * memory (a suspension the store listed within `cacheMs`); others by the store.
   */
  async admit(
    accountId: number,
    shaping: ResolvedShaping,
    options: { book: boolean; paid: boolean },
  ): Promise<ShapingAdmission> {
    const answer = await this.ask(accountId, shaping, options);
    if (!answer.admitted) this.deps.metrics?.shapingWaits.inc({ why: answer.why });
    return answer;
  }

  /** {@link admit} without the counting. */
  private async ask(
    accountId: number,
    shaping: ResolvedShaping,
    options: { book: boolean; paid: boolean },
  ): Promise<ShapingAdmission> {
    const nowMs = this.deps.clock.now();
    if (!isLimited(shaping)) {
      const until = (await this.suspensions(nowMs)).get(shaping.key);
      if (until !== undefined && until > nowMs)
        return { admitted: false, why: 'suspended', retryAt: until, booked: false };
      return { admitted: true, factor: 1 };
    }
    return this.deps.store.shaping.admit({
      key: shaping.key,
      accountId,
      holder: this.holder,
      nowMs,
      intervalMs: shaping.intervalMs,
      maxConnections: shaping.limits.maxConnections ?? null,
      leaseMs: this.deps.config.leaseMs,
      ...options,
    });
  }

  /**
   * The shared count of open connections of an admitted source × destination whose rule caps them,
   * for the transport (`DeliveryRoute.connections`): held in the store under `<key>#connections`, so
   * idle connections a node keeps open count for the whole cluster as well as those in use.
   */
  connectionGate(shaping: AdmittedShaping): ConnectionGate | undefined {
    const max = shaping.limits.maxConnections;
    if (max === undefined) return undefined;
    const key = `${shaping.key}${CONNECTIONS_SUFFIX}`;
    const { store, clock, logger, config } = this.deps;
    const warn = (what: string) => (error: unknown) => {
      logger.warn(`shaping: a connection could not be ${what}`, {
        key,
        error: error instanceof Error ? error.message : String(error),
      });
    };
    return {
      open: async () => {
        const answer = await store.shaping
          .admit({
            key,
            accountId: shaping.accountId,
            holder: this.holder,
            nowMs: clock.now(),
            intervalMs: null,
            maxConnections: Math.max(1, Math.floor(max * shaping.factor)),
            leaseMs: config.leaseMs,
            book: false,
            paid: false,
          })
          .catch((error: unknown) => (warn('counted')(error), null));
        return answer?.admitted === true;
      },
      closed: () => void store.shaping.release(key, this.holder).catch(warn('released')),
    };
  }

  /** Ends a message in flight that {@link admit} counted. Failures are logged: the lease ends it anyway. */
  async release(shaping: AdmittedShaping): Promise<void> {
    if (!shaping.counted) return;
    await this.deps.store.shaping.release(shaping.key, this.holder).catch((error: unknown) => {
      this.deps.logger.warn('shaping: a message in flight could not be released (its lease will end it)', {
        key: shaping.key,
        error: error instanceof Error ? error.message : String(error),
      });
    });
  }

  /**
   * Reads the receiver's reply for what it asks of the source (throttle-replies.ts), tells the store,
   * and answers what the message does: wait uncounted, or let the reply decide. A delivery to a
   * slowed source lets its factor step back up after a quiet period.
   */
  async learn(shaping: AdmittedShaping, reply: ReplySeen & { delivered: boolean }): Promise<ReplyVerdict> {
    const { config, store, clock } = this.deps;
    const nowMs = clock.now();
    if (reply.delivered) {
      if (shaping.factor < 1)
        await store.shaping.recover(shaping.key, nowMs, config.quietPeriodMs, config.recoveryStep);
      await this.pauseWatch.delivered(shaping.accountId, shaping.key, nowMs);
      return { kind: 'none' };
    }
    const action = throttleActionFor(shaping.provider, reply);
    if (!action) return { kind: 'none' };
    if (action.action === 'bounce') return { kind: 'bounce', action };
    const limited = isLimited(shaping);
    // A slow-down of a destination without limits has nothing to halve: it pauses briefly instead.
    const until = action.action === 'suspend' ? nowMs + action.forMs : limited ? null : nowMs + config.unlimitedPauseMs;
    await store.shaping.pushBack({
      key: shaping.key,
      accountId: shaping.accountId,
      nowMs,
      action: until === null ? 'slow-down' : 'suspend',
      ...(until !== null && { untilMs: until }),
      minFactor: config.minFactor,
      gapMs: config.slowDownGapMs,
      reason: action.reason,
      reply: reply.text.replace(/\s+/g, ' ').slice(0, 1000),
    });
    if (until !== null) this.suspendedKeys.set(shaping.key, Math.max(until, this.suspendedKeys.get(shaping.key) ?? 0));
    this.deps.metrics?.shapingPushBacks.inc({
      action: until === null ? 'slow-down' : 'suspend',
      reason: action.reason,
    });
    this.deps.logger.warn('shaping: a receiver pushed back', {
      key: shaping.key,
      action: until === null ? 'slow-down' : 'suspend',
      reason: action.reason,
      ...(until !== null && { until }),
    });
    if (action.kind === 'blocklist' && until !== null)
      await this.pauseWatch.paused({
        accountId: shaping.accountId,
        key: shaping.key,
        provider: shaping.provider,
        untilMs: until,
        reason: action.reason,
        reply: reply.text,
      });
    // Soon, not at the suspension's end: routing then skips the suspended source, and the message
    // overflows to another where its pool allows (or waits for the suspension, booked).
    const jitter = Math.floor(Math.random() * (config.throttleWaitMs / 5));
    return { kind: 'wait', retryAt: nowMs + config.throttleWaitMs + jitter, action };
  }

  /** The operator lifted the suspension of `key` (`POST /account/shaping/state/resume`): its pause is recorded as resumed. */
  resumed(accountId: number, key: string): Promise<void> {
    return this.pauseWatch.resumed(accountId, key);
  }

  private async rulesOf(accountId: number): Promise<ShapingRuleSet> {
    const nowMs = this.deps.clock.now();
    const cached = this.accounts.get(accountId);
    if (cached && nowMs - cached.loadedAt < this.deps.config.cacheMs) return cached.rules;
    const own = await this.deps.store.shaping.rules(accountId);
    const rules = new ShapingRuleSet([...this.base, own]);
    this.accounts.set(accountId, { rules, loadedAt: nowMs });
    return rules;
  }

  private async suspensions(nowMs: number): Promise<ReadonlyMap<string, number>> {
    if (nowMs - this.suspendedLoadedAt >= this.deps.config.cacheMs) {
      this.suspendedLoadedAt = nowMs;
      const listed = await this.deps.store.shaping.suspended(nowMs);
      this.suspendedKeys = new Map(listed.map(({ key, until }) => [key, until]));
    }
    return this.suspendedKeys;
  }
}
