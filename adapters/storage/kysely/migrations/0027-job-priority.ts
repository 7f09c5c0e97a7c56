import { sql, type Kysely } from 'kysely';

/**
 * Fair queues and priority (docs/shaping.md): each job's class (`priority`), whose share it is
 * served from (`fair_key`) and its place in the fair order (`fair_at`). The claim walks
 * `(priority, fair_at, id)` instead of `(available_at, id)`, so the two claim indexes are replaced;
 * jobs already queued keep their order (`fair_at` = `run_at`, neutral class).
 */
export function jobPriorityMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('jobs')
        .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema.alterTable('jobs').addColumn('fair_key', 'text').execute();
      await db.schema
        .alterTable('jobs')
        .addColumn('fair_at', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`update jobs set fair_at = run_at`.execute(db);

      await db.schema.dropIndex('jobs_available').execute();
      await db.schema.dropIndex('jobs_kind_available').execute();
      // The claim: `available_at <= now ORDER BY priority, fair_at, id LIMIT n`, walked in index
      // order. `fair_at` is never below `run_at`, so the rows walked past before a due one are
      // running jobs and jobs due within the fair order's lead (an hour at most).
      await db.schema
        .createIndex('jobs_claim')
        .on('jobs')
        .columns(['priority', 'fair_at', 'id'])
        .where(sql.ref('available_at'), 'is not', null)
        .execute();
      // The runner's claims name their kinds: one such walk per kind, merged.
      await db.schema
        .createIndex('jobs_kind_claim')
        .on('jobs')
        .columns(['kind', 'priority', 'fair_at', 'id'])
        .where(sql.ref('available_at'), 'is not', null)
        .execute();
      // Enqueue's "the latest waiting job of this key in this class".
      await db.schema
        .createIndex('jobs_fair_key')
        .on('jobs')
        .columns(['fair_key', 'priority', 'fair_at'])
        .where(sql.ref('fair_key'), 'is not', null)
        .execute();
    },
  };
}
