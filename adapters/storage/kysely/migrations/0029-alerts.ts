import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { withIdColumn } from '../dialect.js';

/**
 * Alert rules of accounts, the incidents they (and the automatic protections) open, and each
 * incident's timeline. At most one incident per account and topic is open: `open_topic` holds the
 * topic while the incident is open and NULL once resolved, so a plain unique index (NULLs never collide
 * in either dialect) enforces it under concurrent opens.
 */
export function alertsMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('alerts')
        .$call(withIdColumn(dialect))
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        // `name` lower-cased by the application: the case-insensitive search key.
        .addColumn('name_key', 'text', (c) => c.notNull())
        .addColumn('active', 'integer', (c) => c.notNull())
        .addColumn('entity_type', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'bigint', (c) => c.notNull())
        .addColumn('parameter', 'integer', (c) => c.notNull())
        .addColumn('threshold', 'double precision', (c) => c.notNull())
        .addColumn('provider', 'integer')
        .addColumn('processed_count_threshold', 'bigint', (c) => c.notNull())
        .addColumn('window_hours', 'integer', (c) => c.notNull())
        // A JSON array of addresses.
        .addColumn('emails', 'text', (c) => c.notNull())
        .addColumn('slack_url', 'text')
        .addColumn('created', 'bigint', (c) => c.notNull())
        .addColumn('updated', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('alerts_account').on('alerts').columns(['account_id', 'id']).execute();

      await db.schema
        .createTable('incidents')
        .$call(withIdColumn(dialect))
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('topic', 'text', (c) => c.notNull())
        .addColumn('open_topic', 'text')
        // The rule is kept as a snapshot below, so its deletion leaves the incident readable.
        .addColumn('alert_id', 'integer', (c) => c.references('alerts.id').onDelete('set null'))
        .addColumn('entity_type', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'bigint', (c) => c.notNull())
        .addColumn('parameter', 'integer', (c) => c.notNull())
        .addColumn('provider', 'integer')
        .addColumn('threshold', 'double precision', (c) => c.notNull())
        .addColumn('window_hours', 'integer', (c) => c.notNull())
        .addColumn('measured_value', 'double precision', (c) => c.notNull())
        .addColumn('sample_size', 'bigint', (c) => c.notNull())
        .addColumn('summary', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('started', 'bigint', (c) => c.notNull())
        .addColumn('resolved_at', 'bigint')
        .addColumn('resolved_by', 'text')
        .addColumn('updated', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('incidents_account').on('incidents').columns(['account_id', 'id']).execute();
      await db.schema
        .createIndex('incidents_open_topic')
        .on('incidents')
        .columns(['account_id', 'open_topic'])
        .unique()
        .execute();
      await db.schema.createIndex('incidents_alert').on('incidents').column('alert_id').execute();

      await db.schema
        .createTable('incident_actions')
        .$call(withIdColumn(dialect))
        .addColumn('incident_id', 'integer', (c) => c.notNull().references('incidents.id').onDelete('cascade'))
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('detail', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('incident_actions_incident')
        .on('incident_actions')
        .columns(['incident_id', 'id'])
        .execute();
    },
  };
}
