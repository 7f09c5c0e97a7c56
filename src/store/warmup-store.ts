import type { Day } from '../model/dates.js';
import type { EpochNs } from '../model/time.js';

/**
 * What is stored of one IP's running warmup (the `WarmupProgress` of src/warmup/plan.ts).
 * A warmup is identified by the IP and its `warmupStartedAt`: switching auto warmup off and on
 * starts a new one whose progress and traffic never mix with the old one's.
 */
export interface WarmupProgressRecord {
  ipId: number;
  /** The IP's `warmupStartedAt` when this warmup began. */
  startedAt: EpochNs;
  /** Interval boundaries evaluated so far. */
  evaluated: number;
  /** Per mailbox provider id (0-11): how many of those boundaries held the provider's stage. */
  held: number[];
  /** When the last evaluation was saved. */
  updated: EpochNs;
}

/**
 * One delivery attempt's worth (or several) of a warming IP's traffic to one mailbox provider.
 * `sent` counts attempts that reached the provider's servers; `bounced` hard and soft bounces;
 * `deferred` temporary failures.
 */
export interface WarmupTrafficIncrement {
  ipId: number;
  startedAt: EpochNs;
  provider: number;
  /** UTC day of the attempt: daily caps count per day. */
  day: Day;
  /** Interval window of the attempt (boundaries passed since the start): holds judge per window. */
  window: number;
  sent: number;
  bounced: number;
  deferred: number;
  /**
   * True when {@link WarmupStore.reserveSend} has already counted this send in the day's sends:
   * only the window traffic is added.
   */
  reserved?: boolean;
}

/** One send of a warming IP to a mailbox provider on a UTC day: what a daily cap counts. */
export interface WarmupDailySend {
  ipId: number;
  day: Day;
  provider: number;
}

/** Traffic of one provider summed over windows. */
export interface ProviderTraffic {
  provider: number;
  sent: number;
  bounced: number;
  deferred: number;
}

/**
 * Storage of IP warmups: progress per warmup, sends per IP, provider and UTC day (what daily caps
 * compare with), and traffic per warmup, provider and interval window (what a stage hold judges).
 * Keyed by IP id, which the caller has already checked belongs to its account: the store is only
 * reached from delivery and from the warmup job, never with ids from a request.
 *
 * - `addTraffic` MUST add to the stored counts (concurrent increments from several workers or
 *   processes all count) and MUST NOT fail when the rows do not exist yet, nor when an IP no
 *   longer exists (deleted while a message it sent was out): that IP's increments are skipped.
 * - `saveProgress` MUST be compare-and-set: it stores `record` only when the stored progress of
 *   the same warmup has `evaluated === expectedEvaluated` (no row counts as 0) and answers whether
 *   it did, so two workers evaluating the same boundary store it once.
 * - `prune` removes day counts before `beforeDay` and window traffic of warmups other than
 *   `keepStartedAt`; it never touches progress.
 */
export interface WarmupStore {
  addTraffic(entries: readonly WarmupTrafficIncrement[]): Promise<void>;
  /**
   * Reserve-or-refuse, atomic across processes: adds one to the sends of `send` only when they
   * are below `cap` (`Infinity`: always) and answers whether it did. Of concurrent reservations
   * from any number of processes, at most `cap` minus the stored count succeed. Answers `false`
   * when the IP no longer exists.
   */
  reserveSend(send: WarmupDailySend, cap: number): Promise<boolean>;
  /** Gives back a reservation of {@link reserveSend} whose attempt is not recorded (never below 0). */
  returnSend(send: WarmupDailySend): Promise<void>;
  /** Sends on `day` per IP and provider, for the given IPs (rows with a count only). */
  sentOn(ipIds: readonly number[], day: Day): Promise<Array<{ ipId: number; provider: number; sent: number }>>;
  /** Traffic of the warmup `(ipId, startedAt)` in windows `fromWindow <= w < toWindow`, per provider. */
  trafficBetween(ipId: number, startedAt: EpochNs, fromWindow: number, toWindow: number): Promise<ProviderTraffic[]>;
  /** Stored progress of the given IPs' warmups (any `startedAt`: the caller compares). */
  progressOf(ipIds: readonly number[]): Promise<WarmupProgressRecord[]>;
  saveProgress(record: WarmupProgressRecord, expectedEvaluated: number): Promise<boolean>;
  prune(ipId: number, beforeDay: Day, keepStartedAt: EpochNs): Promise<void>;
}
