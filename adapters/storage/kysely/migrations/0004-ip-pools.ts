import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { withIdColumn } from '../dialect.js';

/** Sending IPs, third-party sending providers, IP pools and their memberships. */
export function ipPoolsMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('ips')
        .$call(withIdColumn(dialect))
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('public_ip', 'text', (c) => c.notNull())
        .addColumn('reverse_dns_hostname', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('type', 'integer', (c) => c.notNull())
        .addColumn('state', 'integer', (c) => c.notNull())
        .addColumn('auto_warmup_enabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('warmup_started_at', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('created', 'bigint', (c) => c.notNull())
        .addColumn('updated', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('ips_account_public_ip', ['account_id', 'public_ip'])
        .execute();

      await db.schema
        .createTable('tpsps')
        .$call(withIdColumn(dialect))
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('name_key', 'text', (c) => c.notNull())
        .addColumn('kind', 'integer', (c) => c.notNull())
        .addColumn('host', 'text', (c) => c.notNull())
        .addColumn('port', 'integer', (c) => c.notNull())
        .addColumn('security', 'text', (c) => c.notNull())
        .addColumn('username', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('password_sealed', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created', 'bigint', (c) => c.notNull())
        .addColumn('updated', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('tpsps_account_name_key', ['account_id', 'name_key'])
        .execute();

      await db.schema
        .createTable('ip_pools')
        .$call(withIdColumn(dialect))
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('name_key', 'text', (c) => c.notNull())
        .addColumn('type', 'integer', (c) => c.notNull())
        .addColumn('routing_strategy', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('routing_meta_data', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('should_overflow', 'integer', (c) => c.notNull().defaultTo(0))
        // No foreign key: the store refuses to delete a pool that is an overflow target, and a
        // self-reference would make the cascade of an account's deletion order-dependent.
        .addColumn('overflow_pool_id', 'integer')
        .addColumn('warmup_interval', 'integer', (c) => c.notNull().defaultTo(24))
        .addColumn('created', 'bigint', (c) => c.notNull())
        .addColumn('updated', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('ip_pools_account_name_key', ['account_id', 'name_key'])
        .execute();

      await db.schema
        .createTable('ip_pool_ips')
        .addColumn('pool_id', 'integer', (c) => c.notNull().references('ip_pools.id').onDelete('cascade'))
        // Unique: an IP belongs to at most one pool ("unassigned" when its pool is deleted).
        .addColumn('ip_id', 'integer', (c) => c.notNull().unique().references('ips.id').onDelete('cascade'))
        .execute();
      await db.schema.createIndex('ip_pool_ips_pool').on('ip_pool_ips').column('pool_id').execute();

      await db.schema
        .createTable('ip_pool_tpsps')
        .addColumn('pool_id', 'integer', (c) => c.notNull().references('ip_pools.id').onDelete('cascade'))
        .addColumn('tpsp_id', 'integer', (c) => c.notNull().references('tpsps.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('ip_pool_tpsps_pk', ['pool_id', 'tpsp_id'])
        .execute();
      await db.schema.createIndex('ip_pool_tpsps_tpsp').on('ip_pool_tpsps').column('tpsp_id').execute();
    },
  };
}
