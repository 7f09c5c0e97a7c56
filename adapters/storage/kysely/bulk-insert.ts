import { CompiledQuery } from 'kysely';
import type { KyselyStoreContext } from './context.js';
import type { Database } from './schema.js';

/** Bound parameters per statement: under SQLite's 32,766 and PostgreSQL's 65,535. */
const MAX_PARAMETERS = 30_000;

/**
 * Inserts many rows with one parameterised INSERT per chunk, skipping the query builder. Kysely
 * builds and freezes a node per value, which for a 1,000-recipient send (18,000 values) costs more
 * than SQLite's insert itself. Table and column names come from the code, never from input; every
 * value is a bound parameter. The SQL for a given row count is always the same text, so prepared
 * statements are reused. `suffix` (code, never input) follows the values, e.g. `on conflict do
 * nothing returning "id"`; the rows it returns are answered, in statement order.
 */
export async function bulkInsert<T extends keyof Database & string, R = never>(
  ctx: KyselyStoreContext,
  table: T,
  columns: ReadonlyArray<keyof Database[T] & string>,
  rows: ReadonlyArray<readonly unknown[]>,
  suffix = '',
): Promise<R[]> {
  const returned: R[] = [];
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
  const head = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values `;
  // SQLite's placeholders are the same for every row: one tuple, repeated. PostgreSQL's are numbered.
  const sqliteTuple = `(${'?, '.repeat(columns.length - 1)}?)`;
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    let next = 0;
    const numberedTuple = () => `(${columns.map(() => `$${++next}`).join(', ')})`;
    const placeholders =
      ctx.dialect === 'sqlite'
        ? new Array<string>(chunk.length).fill(sqliteTuple).join(', ')
        : chunk.map(numberedTuple).join(', ');
    const result = await ctx.db.executeQuery<R>(
      CompiledQuery.raw(`${head}${placeholders}${suffix && ` ${suffix}`}`, chunk.flat()),
    );
    returned.push(...result.rows);
  }
  return returned;
}
