import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { withIdColumn } from '../dialect.js';

/** The durable job queue (see docs/jobs.md). */
export function jobsMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('jobs')
        .$call(withIdColumn(dialect, true))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('run_at', 'bigint', (c) => c.notNull())
        .addColumn('available_at', 'bigint')
        .addColumn('locked_by', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('dedupe_key', 'text')
        .addColumn('active_dedupe_key', 'text')
        .addColumn('last_error', 'text')
        .execute();

      // The claim query: `available_at <= now ORDER BY available_at, id LIMIT n`. Partial, so dead
      // jobs (NULL) cost nothing; the second index serves claims restricted to one kind, which would
      // otherwise walk past every due job of the other kinds.
      await db.schema
        .createIndex('jobs_available')
        .on('jobs')
        .columns(['available_at', 'id'])
        .where(sql.ref('available_at'), 'is not', null)
        .execute();
      await db.schema
        .createIndex('jobs_kind_available')
        .on('jobs')
        .columns(['kind', 'available_at', 'id'])
        .where(sql.ref('available_at'), 'is not', null)
        .execute();
      // Dedupe: NULLs are distinct in both dialects, so only pending/running jobs with a key collide,
      // and `INSERT ... ON CONFLICT DO NOTHING` skips the duplicate without aborting a transaction.
      await db.schema
        .createIndex('jobs_active_dedupe')
        .on('jobs')
        .columns(['kind', 'active_dedupe_key'])
        .unique()
        .execute();
      // Pruning and inspecting dead letters without scanning the live queue.
      await db.schema
        .createIndex('jobs_dead')
        .on('jobs')
        .columns(['run_at'])
        .where(sql.ref('state'), '=', 'dead')
        .execute();
    },
  };
}
