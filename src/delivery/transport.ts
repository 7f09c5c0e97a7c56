/**
 * The transport contract: how a composed, signed message leaves mailplane. The core composes and
 * signs (so every transport sends the same bytes); a transport only moves them and reports what the
 * receiving side said. Implementations: `mxTransport` (direct to the recipient domain's MX) and
 * `smartHostTransport` (through the user's own MTA) in `mailplane/transport/smtp`.
 */
import type { ConnectionGate } from '../shaping/connection-gate.js';
import type { WarmupSend } from '../warmup/caps.js';

export type { ConnectionGate };

export type { WarmupSend };

/** What a delivery attempt ended in, as the spec's state table needs it. */
export type DeliveryKind =
  /** 2xx: accepted by the receiving server. */
  | 'delivered'
  /** Temporary failure (4xx, timeout, refused or dropped connection): retry later. */
  | 'soft'
  /** Permanent failure of the address (5xx): HardBounced, and the address is suppressed. */
  | 'hard'
  /** Refused for policy or reputation (e.g. 5.7.x, "blocked as spam"): smtpDropped, not suppressed. */
  | 'dropped';

/** The outcome of one attempt, with the SMTP reply that decided it (kept on the message and in events). */
export interface DeliveryResult {
  kind: DeliveryKind;
  /** Basic SMTP reply code, or `null` when no reply was received (connection refused, timeout, DNS). */
  smtpCode: number | null;
  /** RFC 3463 enhanced status code such as `5.1.1`, when the server gave one. */
  enhancedCode?: string;
  /** The reply text (every line of a multi-line reply), or what went wrong without a reply. */
  text: string;
  /** The temporary failure was a policy or rate limit (4.7.x, "too many"): when retries run out it ends smtpDropped. */
  policy?: boolean;
  /** The host that gave the reply (MX or smart host), when one was reached. */
  host?: string;
  /**
   * The receiver refused before the message's own transaction began: a refused or dropped
   * connection, a greeting or EHLO refusal, a refusal of MAIL FROM. Such a refusal is about the
   * source or the receiver, not this message: the message waits without a retry counted, until
   * its queue lifetime ends (`DeliveryConfig.queueLifetimeMs`).
   */
  beforeTransaction?: boolean;
  /**
   * The transport made no attempt: the destination is saturated or stalled (its connections all
   * busy and none finishing). The message waits in the queue (`DeliveryConfig.busyRetryDelayMs`)
   * with no attempt counted, instead of holding a delivery slot while it waits in memory.
   */
  notAttempted?: boolean;
}

/**
 * A soft result for a failure without a reply (refused, timeout, DNS), with a readable description:
 * rule 1 of the reply classifier (src/bounce/classify.ts), for a transport or delivery that has no
 * reply to classify. It lives with the contract so delivery needs nothing from bounce/.
 */
export function noReply(text: string, host?: string): DeliveryResult {
  return { kind: 'soft', smtpCode: null, text, ...(host !== undefined && { host }) };
}

/** The SMTP envelope: the VERP return path and the recipients of this transaction. */
export interface Envelope {
  from: string;
  to: string[];
}

/** A message ready for the wire: composed, personalised and DKIM-signed ({@link outboundMessage}). */
export interface OutboundMessage {
  /** mailplane's message id (the UUID the API returned). */
  id: string;
  envelope: Envelope;
  /**
   * The signed RFC 5322 message as consecutive slices, never modified once handed over. A body that
   * a bulk batch shares is the same `Buffer` in every message of the batch, so a transport may
   * remember what it learnt of a slice by its identity (the SMTP transports remember where its
   * dots need stuffing) instead of scanning 100 KB again per message.
   */
  readonly parts: readonly Buffer[];
  /** The whole message in one buffer: `parts` joined on first use. */
  readonly raw: Buffer;
}

/** An {@link OutboundMessage} of `parts`, joined into `raw` only if a transport asks for it. */
export function outboundMessage(id: string, envelope: Envelope, parts: readonly Buffer[]): OutboundMessage {
  let joined: Buffer | undefined;
  return {
    id,
    envelope,
    parts,
    get raw() {
      return (joined ??= parts.length === 1 ? parts[0]! : Buffer.concat(parts));
    },
  };
}

/** Where a message leaves from: chosen per message by `DeliveryRouting.choose`. */
export interface DeliveryRoute {
  /** Source address to bind (an allocated IP of the pool); absent: the host's default. */
  localAddress?: string;
  /** Name to greet with in EHLO: the source address's reverse-DNS name; absent: the transport's default. */
  ehloName?: string;
  /** Recorded on the message: which IP, pool or TPSP carried it. */
  ipId: number | null;
  ipPoolId: number | null;
  tpspId: number | null;
  /** Set when `ipId` is warming: the outcome counts toward its warmup (src/warmup/caps.ts). */
  warmup?: WarmupSend;
  /** What traffic shaping asks of the connections from this source to this destination (docs/shaping.md). */
  limits?: TransportLimits;
  /**
   * The cluster's count of connections from this source to this destination, when a rule caps them:
   * a transport that opens connections asks it before each one and tells it when one closes, so the
   * cap holds over every node (docs/shaping.md).
   */
  connections?: ConnectionGate;
}

/**
 * Connection limits of one source × destination from traffic shaping, at the share in force (a slowed
 * source gets fewer connections). A transport that pools connections keeps to them; any may ignore them.
 */
export interface TransportLimits {
  /** Connections open at once to one host from this source. */
  maxConnections?: number;
  /** Transactions on one connection before it is closed and another opened. */
  maxMessagesPerConnection?: number;
  /** How long to wait for a connection to open (ms). */
  connectTimeoutMs?: number;
  /** How long an unused connection stays open (ms). */
  idleTimeoutMs?: number;
}

/**
 * Moves a message to the next hop. MUST NOT throw for anything the receiving side or the network
 * did: every such failure is a {@link DeliveryResult}, classified with `classifySmtpReply`
 * (src/bounce/classify.ts) so permanent versus temporary is decided in one place.
 */
export interface Transport {
  send(message: OutboundMessage, route: DeliveryRoute, options?: { signal?: AbortSignal }): Promise<DeliveryResult>;
  /** Closes pooled connections. */
  close(): Promise<void>;
}
