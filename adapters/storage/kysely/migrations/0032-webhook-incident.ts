import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * The webhooks' `incident` switch (mailplane's event kind: an incident opened or resolved,
 * src/alerts/notify.ts). Off for every existing webhook: nobody receives a new kind of body unasked.
 */
export function webhookIncidentMigration(_dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('webhooks')
        .addColumn('incident', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
