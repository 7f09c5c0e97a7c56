import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * The reputation guard's own state: an incident's `clear_since` (when the evaluation first saw its
 * rate back under the line: it resolves once that has lasted the rule's window), and the automatic
 * protection's settings per account (`sub_account_id` 0) and per sub-account (its overrides), as
 * JSON the application checks.
 */
export function protectionMigration(_dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('incidents').addColumn('clear_since', 'bigint').execute();
      await db.schema
        .createTable('protection_settings')
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('sub_account_id', 'bigint', (c) => c.notNull())
        .addColumn('settings', 'text', (c) => c.notNull())
        .addColumn('updated', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('protection_settings_pk', ['account_id', 'sub_account_id'])
        .execute();
    },
  };
}
