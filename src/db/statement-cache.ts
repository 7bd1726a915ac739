import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** Distinct SQL texts kept prepared; the app issues a few hundred shapes at most. */
const STATEMENT_CACHE_SIZE = 500;

type Control = 'begin' | 'rollback' | 'undo-savepoint' | null;

function controlOf(sql: string): Control {
  const text = sql.trim().toLowerCase();
  if (text === 'begin' || text.startsWith('begin ')) return 'begin';
  if (text === 'rollback') return 'rollback';
  if (text.startsWith('rollback to') || text.startsWith('release')) return 'undo-savepoint';
  return null;
}

/**
 * A statement that knows when SQLite already rolled the transaction back itself, as it does on
 * SQLITE_FULL (disk full) and some I/O errors: the ROLLBACK Kysely then sends would fail with
 * "cannot rollback - no transaction is active", and that error, not the real one, would reach
 * the caller. So such a ROLLBACK does nothing, and a savepoint's rollback or release (group
 * commit, src/db/group-commit.ts) fails with the error that ended the transaction.
 */
function guarded(
  sqlite: SQLite.Database,
  stmt: SqliteStatement,
  control: Control,
  state: { endedBy: unknown },
): SqliteStatement {
  const call = <T>(work: () => T, skipped: () => T): T => {
    if (control === 'begin') state.endedBy = null;
    else if (control !== null && state.endedBy !== null && !sqlite.inTransaction) {
      if (control === 'rollback') return skipped();
      throw state.endedBy;
    }
    try {
      return work();
    } catch (err) {
      if (!sqlite.inTransaction) state.endedBy = err;
      throw err;
    }
  };
  return {
    reader: stmt.reader,
    all: (parameters) =>
      call(
        () => stmt.all(parameters),
        () => [],
      ),
    run: (parameters) =>
      call(
        () => stmt.run(parameters),
        () => ({ changes: 0, lastInsertRowid: 0 }),
      ),
    iterate: (parameters) =>
      call(
        () => stmt.iterate(parameters),
        () => [][Symbol.iterator](),
      ),
  };
}

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
  const state = { endedBy: null as unknown };
  return {
    prepare(sql: string): SqliteStatement {
      let stmt = cache.get(sql);
      if (stmt) {
        // re-insert: Map iteration order is the LRU order
        cache.delete(sql);
      } else {
        const prepared = sqlite.prepare(sql) as unknown as SqliteStatement;
        stmt = guarded(sqlite, prepared, controlOf(sql), state);
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
