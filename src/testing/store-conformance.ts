import { vitest } from './vitest.js';
import type { MailplaneStore } from '../store/index.js';
import { accountStoreConformance } from './conformance/accounts.js';
import { domainStoreConformance } from './conformance/domains.js';
import { ipPoolStoreConformance } from './conformance/ip-pools.js';
import { jobStoreConformance } from './conformance/jobs.js';
import { jobOrderConformance } from './conformance/job-order.js';
import { messageStoreConformance } from './conformance/messages.js';
import { activityStoreConformance } from './conformance/activity.js';
import { rateLimitStoreConformance } from './conformance/rate-limits.js';
import { shapingStoreConformance } from './conformance/shaping.js';
import { sandboxStoreConformance } from './conformance/sandbox.js';
import { statsStoreConformance } from './conformance/stats.js';
import { suppressionStoreConformance } from './conformance/suppressions.js';
import { suppressionListConformance } from './conformance/suppression-lists.js';
import { transactionConformance } from './conformance/transactions.js';
import { webhookStoreConformance } from './conformance/webhooks.js';
import { webhookStateConformance } from './conformance/webhook-state.js';
import { webhookDeliveryConformance } from './conformance/webhook-deliveries.js';
import { warmupStoreConformance } from './conformance/warmup.js';
import { templateStoreConformance } from './conformance/templates.js';
import { idempotencyStoreConformance } from './conformance/idempotency.js';
import { dkimKeysConformance } from './conformance/dkim-keys.js';
import { dashboardSessionStoreConformance } from './conformance/dashboard-sessions.js';
import { alertStoreConformance } from './conformance/alerts.js';
import { incidentStoreConformance } from './conformance/incidents.js';
import { reputationStoreConformance } from './conformance/reputation.js';
import { inboundStoreConformance } from './conformance/inbound.js';
import { inboundListConformance } from './conformance/inbound-list.js';
import { inboundPostLogConformance } from './conformance/inbound-post-log.js';

/** Options of {@link runStoreConformance}. */
export interface StoreConformanceOptions {
  /** Suite title, e.g. `kysely on PostgreSQL`. */
  name: string;
  /** A new, empty, migrated store; called before every test. */
  create(): Promise<MailplaneStore>;
  /** Releases what `create` made (close connections, drop the database); defaults to `store.close()`. */
  destroy?(store: MailplaneStore): Promise<void>;
  /**
   * Opens a second store on the same database as `store`, as another node would; the suite closes
   * it. When given, state that nodes share (rate-limit counters) is checked across the two.
   */
  another?(store: MailplaneStore): Promise<MailplaneStore>;
}

/**
 * The storage contract as executable tests (vitest). Every `MailplaneStore` implementation must
 * pass it; the Kysely store runs it on SQLite and PostgreSQL.
 *
 * @example
 * runStoreConformance({ name: 'my store', create: () => openMyStore(), destroy: (s) => s.close() });
 */
export function runStoreConformance(options: StoreConformanceOptions): void {
  const { afterEach, beforeEach, describe } = vitest();
  describe(`store conformance: ${options.name}`, () => {
    let current: MailplaneStore;
    const store = () => current;
    beforeEach(async () => {
      current = await options.create();
    });
    afterEach(async () => {
      await (options.destroy ? options.destroy(current) : current.close());
    });

    accountStoreConformance(store);
    domainStoreConformance(store);
    suppressionStoreConformance(store);
    suppressionListConformance(store);
    ipPoolStoreConformance(store);
    webhookStoreConformance(store);
    webhookStateConformance(store);
    jobStoreConformance(store);
    jobOrderConformance(store);
    statsStoreConformance(store);
    warmupStoreConformance(store);
    rateLimitStoreConformance(store, options.another);
    shapingStoreConformance(store, options.another);
    messageStoreConformance(store);
    activityStoreConformance(store);
    sandboxStoreConformance(store);
    transactionConformance(store);
    templateStoreConformance(store);
    idempotencyStoreConformance(store);
    dkimKeysConformance(store);
    dashboardSessionStoreConformance(store, options.another);
    webhookDeliveryConformance(store);
    alertStoreConformance(store);
    incidentStoreConformance(store);
    reputationStoreConformance(store);
    inboundStoreConformance(store);
    inboundListConformance(store);
    inboundPostLogConformance(store);
  });
}
