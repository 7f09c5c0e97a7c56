import type { Kysely } from 'kysely';
import type { MailplaneStore } from '../../../src/store/index.js';
import { kyselyAccountStore } from './account-store.js';
import type { KyselyStoreContext } from './context.js';
import type { DialectName } from './dialect.js';
import type { Database } from './schema.js';
import { kyselySubAccountStore } from './sub-account-store.js';
import { kyselyDomainStore } from './domain-store.js';
import { kyselySuppressionStore } from './suppression-store.js';
import { kyselyIpPoolStore, kyselyIpStore, kyselyTpspStore } from './ip-pool-store.js';
import { kyselyWebhookStore } from './webhook-store.js';
import { kyselyJobStore } from './job-store.js';
import { kyselyStatsStore } from './stats-store.js';
import { kyselyMessageStore } from './message-store.js';
import { kyselyWarmupStore } from './warmup-store.js';
import { kyselyShapingStore } from './shaping-store.js';
import { kyselyRateLimitStore } from './rate-limit-store.js';
import { kyselySandboxStore } from './sandbox-store.js';
import { kyselyReadiness, kyselySettingStore } from './instance-store.js';
import { kyselyTemplateStore } from './template-store.js';
import { JobsDueSignal, type ListenClient } from './jobs-due.js';
import { kyselyIdempotencyStore } from './idempotency-store.js';
import { kyselyDashboardSessionStore } from './dashboard-session-store.js';
import { kyselyAlertStore } from './alert-store.js';
import { kyselyIncidentStore } from './incident-store.js';
import { kyselyReputationStore } from './reputation-store.js';
import { kyselyInboundStore } from './inbound-store.js';

/** Options of {@link kyselyStore}. */
export interface KyselyStoreOptions {
  /** A Kysely instance on the mailplane schema (see `migrateToLatest`). */
  db: Kysely<Database>;
  /** Which SQL dialect `db` speaks. */
  dialect: DialectName;
  /**
   * PostgreSQL: opens a new dedicated connection (e.g. `() => new pg.Client({ connectionString })`)
   * that LISTENs for other processes' enqueues, so their jobs start here at once. Without it this
   * store wakes runners for its own enqueues only and the others' jobs are found by polling.
   */
  listenClient?: () => ListenClient;
}

function buildStore(ctx: KyselyStoreContext, close: () => Promise<void>): MailplaneStore {
  return {
    accounts: kyselyAccountStore(ctx),
    subAccounts: kyselySubAccountStore(ctx),
    domains: kyselyDomainStore(ctx),
    suppressions: kyselySuppressionStore(ctx),
    ips: kyselyIpStore(ctx),
    tpsps: kyselyTpspStore(ctx),
    ipPools: kyselyIpPoolStore(ctx),
    webhooks: kyselyWebhookStore(ctx),
    jobs: kyselyJobStore(ctx),
    stats: kyselyStatsStore(ctx),
    messages: kyselyMessageStore(ctx),
    warmup: kyselyWarmupStore(ctx),
    rateLimits: kyselyRateLimitStore(ctx),
    shaping: kyselyShapingStore(ctx),
    sandbox: kyselySandboxStore(ctx),
    settings: kyselySettingStore(ctx),
    templates: kyselyTemplateStore(ctx),
    idempotency: kyselyIdempotencyStore(ctx),
    dashboardSessions: kyselyDashboardSessionStore(ctx),
    alerts: kyselyAlertStore(ctx),
    incidents: kyselyIncidentStore(ctx),
    reputation: kyselyReputationStore(ctx),
    inbound: kyselyInboundStore(ctx),
    ready: () => kyselyReadiness(ctx),
    async transaction(work) {
      if (ctx.inTransaction) return work(buildStore(ctx, close));
      const enqueued = { value: false };
      const result = await ctx.db
        .transaction()
        .execute((trx) =>
          work(
            buildStore({ db: trx, dialect: ctx.dialect, inTransaction: true, jobsDue: ctx.jobsDue, enqueued }, close),
          ),
        );
      if (enqueued.value) ctx.jobsDue.emit();
      return result;
    },
    onJobsDue: (listener) => ctx.jobsDue.subscribe(listener),
    // Only PostgreSQL is shared by several processes (and only there do triggers bump it).
    ...(ctx.dialect === 'postgres' && {
      cacheVersion: async () =>
        String(
          (await ctx.db.selectFrom('cache_version').select('version').where('id', '=', 1).executeTakeFirstOrThrow())
            .version,
        ),
    }),
    close,
  };
}

/**
 * A {@link MailplaneStore} on an existing Kysely instance. The caller owns migrations
 * (`migrateToLatest`); `close()` destroys the Kysely instance. On SQLite the connection MUST run
 * with `PRAGMA foreign_keys = ON` (as `openKyselyStore` sets it): deleting a sub-account relies
 * on the schema's cascades to remove its domains and suppressions.
 *
 * @example
 * const store = kyselyStore({ db, dialect: 'postgres' });
 */
export function kyselyStore(options: KyselyStoreOptions): MailplaneStore {
  const jobsDue = new JobsDueSignal(options.dialect === 'postgres' ? options.listenClient : undefined);
  return buildStore({ db: options.db, dialect: options.dialect, inTransaction: false, jobsDue }, async () => {
    await jobsDue.close();
    await options.db.destroy();
  });
}
