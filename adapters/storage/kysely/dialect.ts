import { sql, type CreateTableBuilder } from 'kysely';
import { likeContains } from '../../../src/model/paging.js';

/** The SQL dialects the Kysely store supports. */
export type DialectName = 'sqlite' | 'postgres';

/**
 * Adds the auto-increment integer primary key `id` in the dialect's own idiom: SQLite's
 * `INTEGER PRIMARY KEY AUTOINCREMENT` (ids never reused) or PostgreSQL's identity column.
 */
export function withIdColumn(dialect: DialectName, big = false) {
  return <T extends string>(table: CreateTableBuilder<T, never>) =>
    dialect === 'sqlite'
      ? table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
      : table.addColumn('id', big ? 'bigint' : 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity());
}

/** True when `error` is a unique-constraint violation in either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * `column LIKE '%search%' ESCAPE '\'` with the search text's wildcards escaped: a literal,
 * case-insensitive substring match when `column` holds lower-cased text, or with `lower` (a column
 * of text as written, too rarely searched to keep a lower-cased copy).
 */
export function containsText(column: string, search: string, options: { lower?: boolean } = {}) {
  const subject = options.lower ? sql`lower(${sql.ref(column)})` : sql.ref(column);
  return sql<boolean>`${subject} like ${likeContains(search)} escape '\\'`;
}
