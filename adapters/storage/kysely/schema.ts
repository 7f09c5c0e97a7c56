import type { ColumnType, Generated } from 'kysely';
import type { DomainTables } from './tables/domains.js';
import type { IpPoolTables } from './tables/ip-pools.js';
import type { JobTables } from './tables/jobs.js';
import type { StatsTables } from './tables/stats.js';
import type { MessageTables } from './tables/messages.js';
import type { SuppressionTables } from './tables/suppressions.js';
import type { WebhookTables } from './tables/webhooks.js';
import type { WarmupTables } from './tables/warmup.js';
import type { RateLimitTables } from './tables/rate-limits.js';
import type { ShapingTables } from './tables/shaping.js';
import type { SandboxTables } from './tables/sandbox.js';
import type { SettingTables } from './tables/settings.js';
import type { TemplateTables } from './tables/templates.js';
import type { CacheVersionTables } from './tables/cache-version.js';
import type { IdempotencyTables } from './tables/idempotency.js';
import type { DashboardSessionTables } from './tables/dashboard-sessions.js';
import type { AlertTables } from './tables/alerts.js';
import type { ReputationTables } from './tables/reputation.js';
import type { InboundTables } from './tables/inbound.js';

/*
 * Column types as the drivers deliver them. SQLite runs with safe integers (every INTEGER comes
 * back as a bigint, so nanosecond timestamps keep all their digits); PostgreSQL returns int4 as a
 * number and int8 as a string. Row mappers (rows.ts) turn all of them into the core's types.
 */

/** An integer column as read back from either driver. */
export type DbInt = ColumnType<number | bigint | string, number | bigint, number | bigint>;
/** An auto-generated integer primary key. */
export type DbId = ColumnType<number | bigint | string, never, never> & Generated<number>;
/** A 0/1 flag (better-sqlite3 cannot bind booleans, so both dialects store integers). */
export type DbFlag = DbInt;
/** An optional integer column. */
export type DbIntNull = ColumnType<number | bigint | string | null, number | bigint | null, number | bigint | null>;

export interface AccountsTable {
  id: DbId;
  name: string;
  api_key_hash: string;
  api_key_sealed: string;
  created: DbInt;
}

export interface SubAccountsTable {
  id: DbId;
  account_id: DbInt;
  name: string;
  /** `name` lower-cased by the application: the case-insensitive uniqueness and search key. */
  name_key: string;
  company_name: string;
  type: DbInt;
  is_plus: DbFlag;
  blocked: DbFlag;
  blocked_at: DbInt;
  block_reason: string;
  hb_exempt: DbFlag;
  generate_weekly_report: DbFlag;
  api_key_hash: string;
  api_key_sealed: string;
  default_ip_pool_id: DbIntNull;
  created: DbInt;
  updated: DbInt;
  /** Days its messages and events are kept (migration 0016); null = the instance default. */
  retention_days: DbIntNull;
}

export interface SmtpAuthsTable {
  id: DbId;
  sub_account_id: DbInt;
  username: string;
  password_hash: string;
  password_sealed: string;
  created: DbInt;
  updated: DbInt;
}

/** Every table of the mailplane schema; each area declares its tables in `tables/`. */
export interface Database
  extends
    DomainTables,
    SuppressionTables,
    IpPoolTables,
    WebhookTables,
    JobTables,
    StatsTables,
    MessageTables,
    WarmupTables,
    RateLimitTables,
    ShapingTables,
    SandboxTables,
    SettingTables,
    TemplateTables,
    CacheVersionTables,
    IdempotencyTables,
    DashboardSessionTables,
    AlertTables,
    ReputationTables,
    InboundTables {
  accounts: AccountsTable;
  sub_accounts: SubAccountsTable;
  smtp_auths: SmtpAuthsTable;
}
