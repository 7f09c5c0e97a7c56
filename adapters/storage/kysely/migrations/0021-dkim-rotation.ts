import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * DKIM key rotation: each domain can hold a pending key (made by a rotation, signing once its
 * record verifies) and the previous key (its record listed until `dkim_previous_retire_at`).
 * Empty selectors mean "none", so existing domains need no backfill.
 */
export function dkimRotationMigration(_dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // One column per statement: SQLite's ALTER TABLE adds one at a time.
      for (const column of [
        'dkim_pending_selector',
        'dkim_pending_public_key',
        'dkim_pending_private_key_sealed',
        'dkim_pending_failure_reason',
        'dkim_previous_selector',
        'dkim_previous_public_key',
      ]) {
        await db.schema
          .alterTable('domains')
          .addColumn(column, 'text', (c) => c.notNull().defaultTo(''))
          .execute();
      }
      for (const column of ['dkim_pending_created', 'dkim_previous_retire_at', 'dkim_rotated_at']) {
        await db.schema
          .alterTable('domains')
          .addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0))
          .execute();
      }
    },
  };
}
