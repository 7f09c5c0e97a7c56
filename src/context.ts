import type { SecretBox } from './crypto/secrets.js';
import type { MailplaneJobs } from './jobs/kinds.js';
import type { JobQueue } from './jobs/queue.js';
import type { DnsResolver } from './dns/resolver.js';
import type { Transport } from './delivery/transport.js';
import type { TpspTransportFactory } from './delivery/routing-transports.js';
import type { IdGenerator } from './model/ids.js';
import type { Clock } from './model/time.js';
import type { MailplaneStore } from './store/index.js';
import type { GroupCommit } from './store/group-commit.js';
import type { WarmupService } from './warmup/service.js';
import type { DeliveryRouting } from './delivery/route.js';
import type { DomainVerifier } from './domain/verification.js';
import type { WebhookOutbox } from './lifecycle/webhook-outbox.js';
import type { MailplaneMetrics } from './metrics/metrics.js';
import type { Logger } from './logging/logger.js';
import type { TemplateCompiler } from './template/renderer.js';
import type { InboundRecipientDirectory } from './domain/recipient-directory.js';
import type { MailplaneConfig } from './mailplane-config.js';

/**
 * Every collaborator of one mailplane instance, as `createMailplane` builds them: the composition
 * root's record, and only its. A module names what it uses in an interface of its own (`AcceptDeps`,
 * `DeliveryServiceDeps`, `ApiDeps`, …, each a few of these fields), so that no function outside the
 * composition root takes the whole instance and no module depends on every other through this file
 * (test/unit/architecture.test.ts holds both).
 */
export interface MailplaneContext {
  readonly config: MailplaneConfig;
  readonly store: MailplaneStore;
  readonly secrets: SecretBox;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  /** This instance's Prometheus metrics (its own registry), exposed by `mailplane.handleMetrics`. */
  readonly metrics: MailplaneMetrics;
  /** Enqueues durable jobs and wakes this process's runner (call `notify()` after a commit). */
  readonly jobs: JobQueue<MailplaneJobs>;
  /** The DNS resolver of this instance (verification, MX lookups), with its cache. */
  readonly resolver: DnsResolver;
  /** Commits writes that must be durable before a response, several per transaction under load. */
  readonly writes: GroupCommit;
  /** Queues the webhook posts of the events a transaction records, in that transaction. */
  readonly webhookOutbox: WebhookOutbox;
  /** The receiving domains and their routes as `RCPT TO` reads them, remembered a few seconds; changes call `changed()`. */
  readonly inboundRecipients: InboundRecipientDirectory;
  /** Where delivery hands signed messages (e.g. `mxTransport` from `mailplane/transport/smtp`); none: messages wait. */
  readonly transport?: Transport;
  /** Builds the transport of a TPSP that a pool routes to (`MailplaneOptions.tpspTransport`); none: such messages wait. */
  readonly tpspTransport?: TpspTransportFactory;
  /*
   * The runtime services: each owns its in-memory state, is built once by `createMailplane` and is
   * closed by `mailplane.close()`. Nothing else keeps state per instance.
   */
  /** Routing at delivery: routing tables, TPSP transports, the choice of each attempt's route. */
  readonly routing: DeliveryRouting;
  /** IP warmup: evaluation, the API's views, and the sends reserved at delivery. */
  readonly warmup: WarmupService;
  /** DNS checks of sending domains, one at a time per domain. */
  readonly domainVerifier: DomainVerifier;
  /** Compiles message templates (accept, stored templates, delivery), with the instance's cache of compiled ones. */
  readonly templateCompiler: TemplateCompiler;
}
