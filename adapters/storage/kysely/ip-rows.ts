import { sql, type Kysely, type Selectable } from 'kysely';
import type {
  IpPoolRecord,
  IpPoolType,
  IpRecord,
  IpState,
  IpType,
  TpspKind,
  TpspRecord,
  TpspSecurity,
} from '../../../src/store/index.js';
import type { KyselyStoreContext } from './context.js';
import { toBigint, toBool, toNumber, toNumberOrNull } from './rows.js';
import type { Database } from './schema.js';
import type { IpPoolsTable, IpsTable, TpspsTable } from './tables/ip-pools.js';

/** Row -> {@link IpRecord}. */
export function toIp(row: Selectable<IpsTable>): IpRecord {
  return {
    id: toNumber(row.id),
    accountId: toNumber(row.account_id),
    publicIp: row.public_ip,
    reverseDnsHostname: row.reverse_dns_hostname,
    type: toNumber(row.type) as IpType,
    state: toNumber(row.state) as IpState,
    autoWarmupEnabled: toBool(row.auto_warmup_enabled),
    warmupStartedAt: toBigint(row.warmup_started_at),
    created: toBigint(row.created),
    updated: toBigint(row.updated),
  };
}

/** Row -> {@link TpspRecord}. */
export function toTpsp(row: Selectable<TpspsTable>): TpspRecord {
  return {
    id: toNumber(row.id),
    accountId: toNumber(row.account_id),
    name: row.name,
    kind: toNumber(row.kind) as TpspKind,
    host: row.host,
    port: toNumber(row.port),
    security: row.security as TpspSecurity,
    username: row.username,
    passwordSealed: row.password_sealed,
    created: toBigint(row.created),
    updated: toBigint(row.updated),
  };
}

/** Row -> {@link IpPoolRecord}. */
export function toPool(row: Selectable<IpPoolsTable>): IpPoolRecord {
  return {
    id: toNumber(row.id),
    accountId: toNumber(row.account_id),
    name: row.name,
    type: toNumber(row.type) as IpPoolType,
    routingStrategy: toNumber(row.routing_strategy),
    routingMetaData: row.routing_meta_data,
    shouldOverflow: toBool(row.should_overflow),
    overflowPoolId: toNumberOrNull(row.overflow_pool_id),
    warmupInterval: toNumber(row.warmup_interval),
    created: toBigint(row.created),
    updated: toBigint(row.updated),
  };
}

/** The case-insensitive identity of a TPSP or pool name. */
export const nameKey = (name: string) => name.toLowerCase();

/**
 * Serialises the pool-related writes of one account inside the current transaction. PostgreSQL
 * runs transactions concurrently, so the account row is locked `FOR UPDATE`; SQLite needs nothing:
 * its single connection already runs one transaction at a time.
 */
export async function lockAccountPools(
  ctx: KyselyStoreContext,
  db: Kysely<Database>,
  accountId: number,
): Promise<void> {
  if (ctx.dialect !== 'postgres') return;
  await sql`select id from accounts where id = ${accountId} for update`.execute(db);
}
