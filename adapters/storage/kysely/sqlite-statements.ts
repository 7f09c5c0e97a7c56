import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import type { SqliteDatabase as KyselySqliteDatabase } from 'kysely';

/** What Kysely runs instead of `rollback` when SQLite has already rolled the transaction back. */
const ALREADY_ROLLED_BACK = { reader: false, run: () => ({ changes: 0, lastInsertRowid: 0 }) };

/**
 * Wraps a better-sqlite3 database so Kysely's driver reuses prepared statements. Kysely prepares
 * every query (even `begin` and `commit`) each time it runs; SQLite's prepare parses and plans the
 * SQL, which costs more than executing the small statements mailplane issues. Statements are kept
 * in a bounded least-recently-used map keyed by SQL text.
 *
 * It also keeps a failed transaction's error visible: SQLite rolls a transaction back by itself
 * on some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_BUSY, SQLITE_NOMEM, per "Response To Errors
 * Within A Transaction" in its docs), and Kysely's ROLLBACK after it would then fail with "cannot
 * rollback - no transaction is active", an error that replaces the one that caused it (a full disk
 * answered as an internal error instead of 503). That ROLLBACK is skipped.
 */
export function cachingStatements(database: SqliteDatabase, capacity = 500): KyselySqliteDatabase {
  const cache = new Map<string, Statement>();
  return {
    close: () => {
      cache.clear();
      database.close();
    },
    prepare(sql: string) {
      if (sql === 'rollback' && !database.inTransaction) return ALREADY_ROLLED_BACK;
      const cached = cache.get(sql);
      // A statement still iterating (a streamed query) cannot run again until it finishes.
      if (cached && !cached.busy) {
        cache.delete(sql);
        cache.set(sql, cached);
        return cached;
      }
      const statement = database.prepare(sql);
      if (!cached) {
        cache.set(sql, statement);
        if (cache.size > capacity) cache.delete(cache.keys().next().value!);
      }
      return statement;
    },
  } as KyselySqliteDatabase;
}
