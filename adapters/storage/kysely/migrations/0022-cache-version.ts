import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/** The tables whose rows nodes cache (webhook presence, routing tables): a write to one bumps the version. */
export const CACHED_TABLES = [
  'webhooks',
  'ip_pools',
  'ip_pool_ips',
  'ip_pool_tpsps',
  'ips',
  'tpsps',
  'sub_accounts',
  'domains',
] as const;

/**
 * One row, `cache_version.version`, that every write to account configuration bumps in its own
 * transaction, so a node can tell with one primary-key read whether what it caches is still
 * current (`MailplaneStore.cacheVersion`). On PostgreSQL statement-level triggers do the bump,
 * whichever code (or person) writes; SQLite serves a single node, whose writes go through its own
 * caches, so it only gets the table.
 */
export function cacheVersionMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('cache_version')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('version', 'bigint', (c) => c.notNull())
        .execute();
      await sql`insert into cache_version (id, version) values (1, 0)`.execute(db);
      if (dialect !== 'postgres') return;
      await sql`
        create function mailplane_bump_cache_version() returns trigger language plpgsql as $$
        begin
          update cache_version set version = version + 1 where id = 1;
          return null;
        end $$`.execute(db);
      for (const table of CACHED_TABLES) {
        await sql`
          create trigger ${sql.id(`${table}_cache_version`)}
          after insert or update or delete or truncate on ${sql.table(table)}
          for each statement execute function mailplane_bump_cache_version()`.execute(db);
      }
    },
  };
}
