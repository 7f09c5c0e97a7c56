/**
 * `mailplane/storage/kysely`: the SQL storage adapter. SQLite (better-sqlite3) is the embedded
 * default; PostgreSQL (pg) serves several mailplane processes sharing one database.
 *
 * @packageDocumentation
 * @module mailplane/storage/kysely
 */
export { openKyselyStore, migrateToLatest, parseDatabaseUrl, type OpenKyselyStoreOptions } from './connect.js';
export { kyselyStore, type KyselyStoreOptions } from './store.js';
export { mailplaneMigrations } from './migrations/index.js';
export {
  ensurePrivateDirectory,
  ensurePrivateFile,
  PRIVATE_DIRECTORY_MODE,
  PRIVATE_FILE_MODE,
} from './private-files.js';
export type { DialectName } from './dialect.js';
export type { ListenClient } from './jobs-due.js';
export type { Database } from './schema.js';
// The tables of Database, for queries of your own on the same Kysely instance.
export type { AccountsTable, DbId, DbInt, DbIntNull, SmtpAuthsTable, SubAccountsTable } from './schema.js';
export type { DomainsTable } from './tables/domains.js';
export type { EventsTable, MessagesTable, SendBatchesTable } from './tables/messages.js';
export type { IpDailySendsTable, IpWarmupProgressTable, IpWarmupTrafficTable } from './tables/warmup.js';
export type { IpPoolIpsTable, IpPoolTpspsTable, IpPoolsTable, IpsTable, TpspsTable } from './tables/ip-pools.js';
export type { JobsTable } from './tables/jobs.js';
export type { RateLimitsTable } from './tables/rate-limits.js';
export type { StatsDailyTable } from './tables/stats.js';
export type { AccountSuppressionsTable, SuppressionsTable } from './tables/suppressions.js';
export type { AlertsTable, IncidentActionsTable, IncidentsTable, ProtectionSettingsTable } from './tables/alerts.js';
export type { ReputationHourlyTable } from './tables/reputation.js';
export type {
  DbBytes,
  InboundDomainsTable,
  InboundMessagesTable,
  InboundPostAttemptsTable,
  InboundRoutesTable,
} from './tables/inbound.js';
export type { DbReal, ShapingFlightsTable, ShapingRulesTable, ShapingStateTable } from './tables/shaping.js';
export type { WebhookDeliveriesTable, WebhooksTable } from './tables/webhooks.js';
export type { CacheVersionTable } from './tables/cache-version.js';
export type { DashboardSessionsTable } from './tables/dashboard-sessions.js';
export type { IdempotencyKeysTable } from './tables/idempotency.js';
export type { SandboxMessagesTable } from './tables/sandbox.js';
export type { SettingsTable } from './tables/settings.js';
export type { TemplatesTable, TemplateVersionsTable } from './tables/templates.js';
