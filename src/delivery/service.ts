/**
 * Delivery as a service of the instance: it owns what delivery keeps between jobs (compiled
 * templates, DKIM keys, shared bulk bodies, the outcomes' group commit, the DKIM signing threads)
 * and closes it with the instance. The delivery jobs (src/delivery/jobs.ts) hand it the messages
 * to send; `deliverOne` (src/delivery/deliver.ts) is one attempt of one message.
 */
import PQueue from 'p-queue';
import { RetryJobError } from '../jobs/errors.js';
import type { DomainRecord, MessageRecord, SendBatchRecord } from '../store/index.js';
import { createDeliveryCaches, type DeliveryCaches } from './caches.js';
import { deliverOne, sendingDomain, type DeliverDeps } from './deliver.js';
import type { PaidSlot } from './route-admission.js';
import type { Transport } from './transport.js';

/** What delivery uses of the instance: what one attempt uses, and the transport it hands messages to. */
export interface DeliveryServiceDeps extends DeliverDeps {
  readonly transport?: Transport;
}

/** How long delivery jobs wait when the instance has no transport configured. */
const NO_TRANSPORT_WAIT_MS = 60_000;

/** Sends messages: routes, composes, signs, hands them to a transport and records the outcomes. */
export class DeliveryService {
  private readonly caches: DeliveryCaches;
  private warnedNoTransport = false;

  constructor(private readonly deps: DeliveryServiceDeps) {
    this.caches = createDeliveryCaches(deps);
  }

  /**
   * The instance's transport. Without one the job waits (uncounted) and comes back later; the first
   * time says so in the log.
   */
  transport(): Transport {
    const { transport, logger, clock } = this.deps;
    if (transport) return transport;
    if (!this.warnedNoTransport) {
      this.warnedNoTransport = true;
      logger.warn('delivery: no transport configured (MailplaneOptions.transport); messages stay queued');
    }
    throw new RetryJobError('no transport configured', {
      runAt: clock.now() + NO_TRANSPORT_WAIT_MS,
      countAttempt: false,
    });
  }

  /**
   * Delivers `messages` (all of `batch`, still `queued` when listed), `delivery.concurrency` at a
   * time. A storage failure rejects after the others settled: the job is retried, and the messages
   * recorded meanwhile are skipped.
   */
  async deliverAll(messages: MessageRecord[], batch: SendBatchRecord, signal: AbortSignal): Promise<void> {
    const transport = this.transport();
    const domain = await this.routeFor(batch);
    const queue = new PQueue({ concurrency: this.deps.config.delivery.concurrency });
    const settled = await Promise.allSettled(
      messages.map((message) =>
        queue.add(async () => {
          if (signal.aborted) return;
          await deliverOne(this.deps, transport, this.caches, message, batch, domain, signal);
        }),
      ),
    );
    const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failure) throw failure.reason;
  }

  /** Delivers one message again (a retry), with the shaping slot `paid` it booked, if any. */
  async deliverAgain(
    message: MessageRecord,
    batch: SendBatchRecord,
    signal: AbortSignal,
    paid?: PaidSlot,
  ): Promise<void> {
    const transport = this.transport();
    const domain = await this.routeFor(batch);
    await deliverOne(this.deps, transport, this.caches, message, batch, domain, signal, paid);
  }

  /** Ends the DKIM signing threads; a signature asked for afterwards is made on libuv's pool. */
  async close(): Promise<void> {
    await this.caches.signer.close();
  }

  /**
   * The sending domain of `batch` (`null` when deleted since), with routing refreshed: each job
   * routes with the pools, IP states and default pool as they are when it starts.
   */
  private async routeFor(batch: SendBatchRecord): Promise<DomainRecord | null> {
    const domain = await sendingDomain(this.deps, batch);
    await this.deps.routing.refresh(batch.accountId, batch.subAccountId);
    return domain;
  }
}
