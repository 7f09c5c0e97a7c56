import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

// PLACEHOLDER: filled by the helper that owns this area; remove this comment.
export function webhooksMigration(_dialect: DialectName) {
  return {
    async up(_db: Kysely<unknown>): Promise<void> {},
  };
}
