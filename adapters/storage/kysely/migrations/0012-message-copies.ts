import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * cc and bcc copies as messages of their own (docs/sending.md, "cc and bcc"): `copy_of` is the
 * JSON of a copy's `CopyOf` (NULL on a recipient's own message), and `separate_copies` marks a
 * recipient's message whose copies are messages of their own. Rows written before this migration
 * keep 0 there: their copies are still in the recipient's envelope, as they were accepted.
 */
export function messageCopiesMigration(_dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('messages').addColumn('copy_of', 'text').execute();
      await db.schema
        .alterTable('messages')
        .addColumn('separate_copies', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
