import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** Distinct SQL texts kept prepared; the app issues a few hundred shapes at most. */
export const STATEMENT_CACHE_SIZE = 500;

/**
 * The better-sqlite3 connection as Kysely's SqliteDialect sees it, with every prepared statement
 * kept for reuse: Kysely calls `prepare()` for each query, and preparing was 14–19 % of the CPU
 * of a write in a profile (docs/performance.md). Statements are keyed by their SQL text and
 * evicted least recently used.
 * Safe because Kysely's SQLite driver runs one query at a time on its single connection; a
 * statement still iterating (a streamed query) is never handed out twice at once, since the
 * stream holds that connection until it ends.
 */
export function cachingDatabase(
  sqlite: SQLite.Database,
  size = STATEMENT_CACHE_SIZE,
): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    prepare(sql: string): SqliteStatement {
      let stmt = cache.get(sql);
      if (stmt) {
        // re-insert: Map iteration order is the LRU order
        cache.delete(sql);
      } else {
        stmt = sqlite.prepare(sql) as unknown as SqliteStatement;
        if (cache.size >= size) cache.delete(cache.keys().next().value as string);
      }
      cache.set(sql, stmt);
      return stmt;
    },
    close(): void {
      cache.clear();
      sqlite.close();
    },
  };
}
