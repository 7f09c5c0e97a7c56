import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { withIdColumn } from '../dialect.js';

/**
 * Stored templates of sub-accounts (docs/templates.md) and their kept versions. A template's name
 * is unique in its sub-account through `name_key` (the name lower-cased by the application); a
 * version is one row per saved content, keyed by template and number, so reading the active one
 * is a primary-key lookup.
 */
export function templatesMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('templates')
        .$call(withIdColumn(dialect))
        .addColumn('sub_account_id', 'integer', (c) => c.notNull().references('sub_accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('name_key', 'text', (c) => c.notNull())
        .addColumn('active_version', 'integer', (c) => c.notNull())
        .addColumn('latest_version', 'integer', (c) => c.notNull())
        .addColumn('created', 'bigint', (c) => c.notNull())
        .addColumn('updated', 'bigint', (c) => c.notNull())
        // Also the index behind findByName, which a send with a template name uses.
        .addUniqueConstraint('templates_sub_account_name_key', ['sub_account_id', 'name_key'])
        .execute();
      await db.schema
        .createTable('template_versions')
        .addColumn('template_id', 'integer', (c) => c.notNull().references('templates.id').onDelete('cascade'))
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('html_body', 'text')
        .addColumn('text_body', 'text')
        .addColumn('amp_body', 'text')
        .addColumn('created', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('template_versions_pkey', ['template_id', 'version'])
        .execute();
    },
  };
}
