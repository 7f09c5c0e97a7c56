/** The limits a rule may set; a field left out is inherited from a less specific rule. */
export interface ShapingLimits {
  /** Messages in flight at once from the source to the destination, for the whole cluster (≈ connections in use). */
  maxConnections?: number;
  /** Transactions on one connection before the transport closes it and opens another. */
  maxMessagesPerConnection?: number;
  /** Messages per second, minute and hour: enforced together, smoothly (one message every interval). */
  messagesPerSecond?: number;
  messagesPerMinute?: number;
  messagesPerHour?: number;
  /** How long the transport waits for a connection to open (ms). */
  connectTimeoutMs?: number;
  /** How long an unused connection stays open before the transport closes it (ms). */
  idleTimeoutMs?: number;
}

/**
 * One rule as configured and as the API shows it. `destination` is `provider:<name>` (a provider
 * name of src/shaping/rules.ts, e.g. `provider:gmail`), `mx:<host suffix>`, `domain:<recipient
 * domain>` or `*`; `source` is `ip:<address>`, `tpsp:<id>` or `*`.
 */
export interface ShapingRule extends ShapingLimits {
  destination: string;
  source: string;
}

/**
 * One request to send a message from a source to a destination now (`ShapingStore.admit`). The key
 * names the source × destination (`ip:7|provider:gmail`, src/shaping/rules.ts); times are epoch ms.
 */
export interface ShapingAdmitRequest {
  key: string;
  /** The account the source belongs to (the state is listed per account). */
  accountId: number;
  /** The node asking: its messages in flight are counted under it, and expire with its lease. */
  holder: string;
  nowMs: number;
  /** Spacing between two messages at full speed, or `null` when no rate applies (divided by the state's factor). */
  intervalMs: number | null;
  /** Messages in flight at once for the whole cluster, or `null` (multiplied by the factor, at least 1). */
  maxConnections: number | null;
  /** How long a message in flight counts if its node never says it ended (a node that died). */
  leaseMs: number;
  /** When the rate refuses now: book the next free slot for this message (the rate is then paid). */
  book: boolean;
  /** The message holds a slot booked earlier on this key that is due now: the rate is not taken again. */
  paid: boolean;
}

/** What {@link ShapingStore.admit} answered. */
export type ShapingAdmission =
  /** Send now; one message is in flight under the holder until {@link ShapingStore.release}. */
  | { admitted: true; factor: number }
  /**
   * Not now: `suspended` (until `retryAt`), `connections` (all in use: try again soon) or `rate` (the
   * next slot is at `retryAt`; `booked`: that slot is this message's).
   */
  | { admitted: false; why: 'suspended' | 'connections' | 'rate'; retryAt: number; booked: boolean };

/** A throttle or block a receiver answered (src/shaping/throttle-replies.ts), applied to its source × destination. */
export interface ShapingPushBack {
  key: string;
  accountId: number;
  nowMs: number;
  /** `slow-down`: halve the factor (not below `minFactor`, at most once per `gapMs`); `suspend`: no admission until `untilMs`. */
  action: 'slow-down' | 'suspend';
  untilMs?: number;
  minFactor: number;
  gapMs: number;
  /** The table's reason code and the reply, one line. */
  reason: string;
  reply: string;
}

/** The stored state of one source × destination (the API's and the dashboard's view). */
export interface ShapingStateRecord {
  key: string;
  accountId: number;
  /** The share of the rule's rate and connections in force: 1, or less after slow-downs. */
  factor: number;
  /** The next free slot of the rate (epoch ms; in the past when a message may go now). */
  nextSlotAt: number;
  /** Messages in flight now, over every node. */
  inFlight: number;
  suspendedUntil: number | null;
  /** The last push-back: its reason code, its reply, when. */
  reason: string | null;
  lastReply: string | null;
  lastReplyAt: number | null;
  /** When the factor was last lowered, and last raised. */
  throttledAt: number | null;
  recoveredAt: number | null;
  updatedAt: number;
}

/**
 * Storage of traffic shaping: the state every node enforces the limits with (so they hold for the
 * cluster), and each account's own rules.
 *
 * - `admit` MUST be atomic per key across processes: of concurrent admissions, no more than the
 *   connection cap are in flight at once (holders' leases that expired do not count), and no two
 *   take or book the same slot of the rate. Its order: a suspension refuses; then the connection
 *   cap; then the rate (a slot `intervalMs / factor` after the previous one; the first is free).
 *   It creates the key's state on first use.
 * - `release` ends one message in flight of the holder (never below zero).
 * - `pushBack` creates the state if needed; a slow-down lowers the factor only when the last one
 *   was at least `gapMs` ago (a burst of replies to messages already in flight counts once).
 * - `recover` raises a lowered factor by `step` (at most 1) when no push-back came for `quietMs`
 *   and none was raised in that time; answers the factor in force.
 * - `rules`/`replaceRules`: an account's table, replaced whole; an account without one answers `[]`.
 */
export interface ShapingStore {
  admit(request: ShapingAdmitRequest): Promise<ShapingAdmission>;
  release(key: string, holder: string): Promise<void>;
  pushBack(event: ShapingPushBack): Promise<void>;
  recover(key: string, nowMs: number, quietMs: number, step: number): Promise<number>;
  /**
   * The states of one account's sources (`null`: of every account, for the metrics), most recently
   * updated first, at most `limit`; in flight as of `nowMs`.
   */
  states(accountId: number | null, nowMs: number, limit: number): Promise<ShapingStateRecord[]>;
  /** Keys suspended at `nowMs`, over every account: what nodes keep in memory for unlimited destinations. */
  suspended(nowMs: number): Promise<{ key: string; until: number }[]>;
  /** Lifts a suspension and restores the full rate (the operator's resume); false when the key has no state. */
  resume(accountId: number, key: string): Promise<boolean>;
  rules(accountId: number): Promise<ShapingRule[]>;
  replaceRules(accountId: number, rules: readonly ShapingRule[], nowMs: number): Promise<void>;
  /** Removes states not updated since `beforeMs` and expired in-flight leases; answers the states removed. */
  prune(beforeMs: number): Promise<number>;
}
