import type {
  DeliveryKind,
  DeliveryResult,
  DeliveryRoute,
  Envelope,
  OutboundMessage,
  Transport,
} from '../delivery/transport.js';

/** One message a {@link captureTransport} was given, with what it answered. */
export interface CapturedMessage {
  /** mailplane's message id (the `messageId` the API returned). */
  id: string;
  /** The SMTP envelope: the VERP return path and the recipients. */
  envelope: Envelope;
  /** The signed RFC 5322 message, exactly the bytes an SMTP transport would have sent. */
  raw: Buffer;
  /** Where delivery routed it from (IP, pool or TPSP). */
  route: DeliveryRoute;
  /** What the transport answered. */
  result: DeliveryResult;
}

/** What a {@link captureTransport} answers for one recipient: a kind (with a typical reply) or a full result. */
export type CaptureAnswer = DeliveryKind | DeliveryResult;

/** Options of {@link captureTransport}. */
export interface CaptureTransportOptions {
  /**
   * Answers by recipient address (compared case-insensitively); recipients not listed are
   * `delivered`. A message with several envelope recipients gets the answer of the first listed one.
   */
  outcomes?: Record<string, CaptureAnswer>;
  /** Decides the answer per recipient instead of (or before) `outcomes`; `undefined` falls through. */
  answer?(recipient: string, message: OutboundMessage): CaptureAnswer | undefined;
}

/** A {@link Transport} that keeps what it is given. */
export interface CaptureTransport extends Transport {
  /** Every message sent so far, in order. */
  readonly messages: readonly CapturedMessage[];
  /** The captured messages whose envelope includes `recipient` (case-insensitively). */
  to(recipient: string): CapturedMessage[];
  /** Resolves with the messages once at least `count` were captured; rejects after `timeoutMs` (default 10 s). */
  waitFor(count: number, timeoutMs?: number): Promise<readonly CapturedMessage[]>;
  /** Forgets the captured messages. */
  clear(): void;
}

/** The reply each kind stands for, as a receiving server would give it. */
const REPLIES: Record<DeliveryKind, DeliveryResult> = {
  delivered: {
    kind: 'delivered',
    smtpCode: 250,
    enhancedCode: '2.0.0',
    text: '250 2.0.0 OK: captured',
    host: 'capture.invalid',
  },
  soft: {
    kind: 'soft',
    smtpCode: 451,
    enhancedCode: '4.3.0',
    text: '451 4.3.0 Temporary failure (capture transport)',
    host: 'capture.invalid',
  },
  hard: {
    kind: 'hard',
    smtpCode: 550,
    enhancedCode: '5.1.1',
    text: '550 5.1.1 No such user (capture transport)',
    host: 'capture.invalid',
  },
  dropped: {
    kind: 'dropped',
    smtpCode: 554,
    enhancedCode: '5.7.1',
    text: '554 5.7.1 Message refused by policy (capture transport)',
    host: 'capture.invalid',
  },
};

const toResult = (answer: CaptureAnswer): DeliveryResult =>
  typeof answer === 'string' ? { ...REPLIES[answer] } : { ...answer };

/**
 * A transport for tests: it records every message with its envelope and raw bytes and answers
 * `delivered` (or the outcome configured per recipient) without opening a socket. With
 * `createMemoryStore()` it runs the whole pipeline — accept, delivery, outcome, events, stats,
 * webhooks — in one process and in milliseconds.
 *
 * @example
 * const transport = captureTransport({ outcomes: { 'bounce@example.com': 'hard' } });
 * const mailplane = createMailplane({ store: createMemoryStore(), secret, transport });
 * mailplane.start();
 * // ... send through mailplane.handle ...
 * const [message] = await transport.waitFor(1);
 * expect(message.raw.toString()).toContain('Subject: Hello');
 */
export function captureTransport(options: CaptureTransportOptions = {}): CaptureTransport {
  const messages: CapturedMessage[] = [];
  const waiters = new Set<() => void>();
  const outcomes = new Map(
    Object.entries(options.outcomes ?? {}).map(([address, answer]) => [address.toLowerCase(), answer]),
  );

  const answerFor = (message: OutboundMessage): DeliveryResult => {
    for (const recipient of message.envelope.to) {
      const answer = options.answer?.(recipient, message) ?? outcomes.get(recipient.toLowerCase());
      if (answer !== undefined) return toResult(answer);
    }
    return toResult('delivered');
  };

  return {
    messages,
    async send(message, route) {
      const result = answerFor(message);
      messages.push({
        id: message.id,
        envelope: { from: message.envelope.from, to: [...message.envelope.to] },
        raw: Buffer.from(message.raw),
        route: { ...route },
        result,
      });
      for (const wake of [...waiters]) wake();
      return result;
    },
    to(recipient) {
      const key = recipient.toLowerCase();
      return messages.filter((m) => m.envelope.to.some((to) => to.toLowerCase() === key));
    },
    waitFor(count, timeoutMs = 10_000) {
      if (messages.length >= count) return Promise.resolve(messages);
      return new Promise((resolve, reject) => {
        const wake = () => {
          if (messages.length < count) return;
          waiters.delete(wake);
          clearTimeout(timer);
          resolve(messages);
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`captureTransport: ${messages.length} of ${count} messages captured after ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(wake);
      });
    },
    clear() {
      messages.length = 0;
    },
    async close() {},
  };
}
