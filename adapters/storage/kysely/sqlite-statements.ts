import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import type { SqliteDatabase as KyselySqliteDatabase } from 'kysely';

/**
 * Wraps a better-sqlite3 database so Kysely's driver reuses prepared statements. Kysely prepares
 * every query (even `begin` and `commit`) each time it runs; SQLite's prepare parses and plans the
 * SQL, which costs more than executing the small statements mailplane issues. Statements are kept
 * in a bounded least-recently-used map keyed by SQL text.
 */
export function cachingStatements(database: SqliteDatabase, capacity = 500): KyselySqliteDatabase {
  const cache = new Map<string, Statement>();
  return {
    close: () => {
      cache.clear();
      database.close();
    },
    prepare(sql: string) {
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
