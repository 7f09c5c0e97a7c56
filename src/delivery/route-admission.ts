/**
 * Admission of one message's attempt by traffic shaping (src/shaping/), across the sources routing
 * may choose. Each candidate the pool's strategy picks is asked of shaping in turn; one refused
 * (suspended, its connections in use, its rate's next slot later) is set aside and routing picks
 * again, past it, and overflows where the pool allows. When every candidate is refused:
 * - a short wait (the next slot or a free connection within {@link IN_MEMORY_WAIT_MS}) is waited
 *   here, holding the job's slot, as a connection pool's queue would;
 * - a longer one books the earliest candidate's next slot and the message waits in the queue until
 *   then (the booking travels in its job, so it is not charged again: {@link PaidSlot}).
 * Booking instead of refusing is what keeps a backlog from coming back all at once: 1,000 messages
 * for a source allowed one a second leave one a second, in the order they booked.
 */
import type { RoutingEntity } from '../routing/metadata.js';
import type { Source } from '../shaping/rules.js';
import type { AdmittedShaping } from '../shaping/service.js';
import type { ShapingAdmission } from '../store/index.js';
import type { DeliveryRoute } from './transport.js';

/** Waits up to this long in memory for a slot or a connection rather than going back to the queue. */
export const IN_MEMORY_WAIT_MS = 1_000;

/** How long to wait for a connection to free before asking again (in memory), with jitter added. */
export const CONNECTION_POLL_MS = 25;

/** A slot of a source × destination's rate booked for a message: it comes back at `at` and pays nothing more. */
export interface PaidSlot {
  key: string;
  at: number;
}

/** A candidate set aside: the source (`ip:7`, `tpsp:2`, `host`), its state key, and why. */
export interface Refusal {
  source: string;
  key: string;
  /** The rate's spacing at full speed (what a booking advances by), or `null`. */
  intervalMs: number | null;
  answer: Extract<ShapingAdmission, { admitted: false }>;
}

/**
 * Of the refusals of one routing decision, the time the message can next be admitted: the
 * earliest slot, suspension end, or (for connections) a short poll.
 */
export function earliestRetry(refusals: Iterable<Refusal>, nowMs: number): number {
  let earliest = Infinity;
  for (const { answer } of refusals) {
    const at =
      answer.why === 'connections' ? nowMs + CONNECTION_POLL_MS + Math.random() * CONNECTION_POLL_MS : answer.retryAt;
    earliest = Math.min(earliest, at);
  }
  return earliest;
}

/** The refusal whose rate slot comes first, to book: only rate refusals can be booked. */
export function firstRateRefusal(refusals: Iterable<Refusal>): Refusal | undefined {
  let first: Refusal | undefined;
  for (const refusal of refusals)
    if (refusal.answer.why === 'rate' && (!first || refusal.answer.retryAt < first.answer.retryAt)) first = refusal;
  return first;
}

/** Sleeps `ms`, or less when `signal` aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** The shaping source of a routed entity: an IP, a TPSP, or the host's own address. */
export function sourceOf(entity: RoutingEntity | { kind: 'host' }, address = ''): Source {
  if (entity.kind === 'host') return { kind: 'host' };
  return entity.kind === 'ip' ? { kind: 'ip', id: entity.id, address } : { kind: 'tpsp', id: entity.id };
}

/** A source's prefix in shaping keys (`ip:7`): what a booked slot names. */
export const sourcePrefix = (entity: RoutingEntity | { kind: 'host' }) =>
  entity.kind === 'host' ? 'host' : `${entity.kind}:${entity.id}`;

/** What the transport's connections keep to, at the share of the limits in force. */
export function transportLimits(shaping: AdmittedShaping): NonNullable<DeliveryRoute['limits']> {
  const { maxConnections, maxMessagesPerConnection, connectTimeoutMs, idleTimeoutMs } = shaping.limits;
  return {
    ...(maxConnections !== undefined && { maxConnections: Math.max(1, Math.floor(maxConnections * shaping.factor)) }),
    ...(maxMessagesPerConnection !== undefined && { maxMessagesPerConnection }),
    ...(connectTimeoutMs !== undefined && { connectTimeoutMs }),
    ...(idleTimeoutMs !== undefined && { idleTimeoutMs }),
  };
}
