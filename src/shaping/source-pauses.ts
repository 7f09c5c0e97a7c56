/**
 * The blocklist pauses of sources, as traffic shaping tells them to whoever records them (the
 * reputation guard's incidents, src/alerts/source-pause.ts, wired by `createMailplane`): a source
 * paused on a blocklist or policy refusal, a pause the operator resumed, and a pause that ran out and
 * was followed by a delivery. Shaping names only this contract, so it imports nothing of alerts.
 */
import type { Logger } from '../logging/logger.js';
import { describeError } from '../logging/describe-error.js';
import type { MailboxProvider } from '../routing/providers.js';

/** A source paused for a destination on a blocklist or policy refusal (a `blocklist` row of throttle-replies.ts). */
export interface SourcePause {
  accountId: number;
  /** The shaping key, `<source>|<destination>` (`ip:7|provider:microsoft`). */
  key: string;
  /** The provider of the recipient that got the refusal. */
  provider: MailboxProvider;
  /** When the pause ends (epoch ms). */
  untilMs: number;
  /** The row's UPPER_SNAKE reason (`MICROSOFT_S3150`). */
  reason: string;
  /** The receiver's reply, on one line. */
  reply: string;
}

/** How a pause ended: the operator resumed it, or it ran out and the source delivered again. */
export type SourcePauseEnd = 'resumed' | 'ran-out';

/** Who hears of pauses (`TrafficShapingDeps.pauses`). Failures are logged by shaping, never thrown to delivery. */
export interface SourcePauseListener {
  paused(pause: SourcePause): Promise<void>;
  ended(accountId: number, key: string, how: SourcePauseEnd): Promise<void>;
}

/**
 * The pauses this node recorded, in memory, so that a delivery can tell that it ends one without a
 * store read per delivered message: a pause recorded by another node, or before a restart, is not
 * known here, and its incident stays open until the operator resumes the source or resolves it.
 */
export class SourcePauseWatch {
  /** Until when each paused `accountId|key` is paused. */
  private readonly pausedUntil = new Map<string, number>();

  constructor(
    private readonly listener: SourcePauseListener | undefined,
    private readonly logger: Logger,
  ) {}

  /** A source was paused on a blocklist refusal: remembered, and told to the listener. */
  async paused(pause: SourcePause): Promise<void> {
    const id = watchId(pause.accountId, pause.key);
    this.pausedUntil.set(id, Math.max(pause.untilMs, this.pausedUntil.get(id) ?? 0));
    await this.tell('paused', pause.key, () => this.listener?.paused(pause));
  }

  /** A message of `key` was delivered: if it follows a pause that ran out, the pause is over. */
  async delivered(accountId: number, key: string, nowMs: number): Promise<void> {
    const id = watchId(accountId, key);
    const until = this.pausedUntil.get(id);
    // A message admitted before the pause may still be delivered during it: that ends nothing.
    if (until === undefined || until > nowMs) return;
    this.pausedUntil.delete(id);
    await this.tell('ended', key, () => this.listener?.ended(accountId, key, 'ran-out'));
  }

  /** The operator resumed `key`: its pause, if any, is over. */
  async resumed(accountId: number, key: string): Promise<void> {
    this.pausedUntil.delete(watchId(accountId, key));
    await this.tell('ended', key, () => this.listener?.ended(accountId, key, 'resumed'));
  }

  private async tell(what: string, key: string, call: () => Promise<void> | undefined): Promise<void> {
    try {
      await call();
    } catch (error) {
      this.logger.warn(`shaping: a source pause could not be recorded as ${what}`, {
        key,
        error: describeError(error),
      });
    }
  }
}

/** Keys of different accounts may be equal (`host|provider:gmail`): the account is part of the id. */
const watchId = (accountId: number, key: string): string => `${accountId}|${key}`;
