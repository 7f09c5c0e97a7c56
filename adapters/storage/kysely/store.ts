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
import { kyselyRateLimitStore } from './rate-limit-store.js';
import { kyselySandboxStore } from './sandbox-store.js';
import { kyselyReadiness, kyselySettingStore } from './instance-store.js';
import { kyselyDashboardSessionStore } from './dashboard-session-store.js';

/** Options of {@link kyselyStore}. */
export interface KyselyStoreOptions {
  /** A Kysely instance on the mailplane schema (see `migrateToLatest`). */
  db: Kysely<Database>;
  /** Which SQL dialect `db` speaks. */
  dialect: DialectName;
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
    sandbox: kyselySandboxStore(ctx),
    settings: kyselySettingStore(ctx),
    dashboardSessions: kyselyDashboardSessionStore(ctx),
    ready: () => kyselyReadiness(ctx),
    transaction(work) {
      if (ctx.inTransaction) return work(buildStore(ctx, close));
      return ctx.db
        .transaction()
        .execute((trx) => work(buildStore({ db: trx, dialect: ctx.dialect, inTransaction: true }, close)));
    },
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
  return buildStore({ db: options.db, dialect: options.dialect, inTransaction: false }, () => options.db.destroy());
}
