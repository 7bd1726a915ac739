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
interface ConnectionState {
  endedBy: unknown;
  /** statements that write run so far on the connection (SyncStatements.writes) */
  writes: number;
  /** a statement that writes ran since the last transaction ended */
  wrote: boolean;
  /** called when a transaction that wrote has ended (COMMIT, or a write outside a transaction) */
  onCommit: () => void;
}

function guarded(
  sqlite: SQLite.Database,
  stmt: SqliteStatement,
  writes: boolean,
  control: Control,
  state: ConnectionState,
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
    } finally {
      if (writes) {
        state.wrote = true;
        state.writes++;
      }
      if (state.wrote && !sqlite.inTransaction) {
        state.wrote = false;
        state.onCommit();
      }
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
 * The connection's statements run synchronously, for a write that holds the connection (the
 * group commit's writeSync, src/db/group-commit.ts): the same prepared statements Kysely gets,
 * without its asynchronous layers (3–4 µs a statement).
 */
export interface SyncStatements {
  /** the rows of a statement that returns rows (`returning` included) */
  all<Row>(sql: string, parameters: readonly unknown[]): Row[];
  /** runs a statement; returns the number of rows it changed */
  run(sql: string, parameters: readonly unknown[]): number;
  /** how many statements that write have run on the connection so far (a write's "did it write") */
  writes(): number;
  /** whether a transaction is open: false after SQLite ended one itself (disk full) */
  inTransaction(): boolean;
}

/**
 * The better-sqlite3 connection as Kysely's SqliteDialect sees it, with every prepared statement
 * kept for reuse: Kysely calls `prepare()` for each query, and preparing was 14–19 % of the CPU
 * of a write in a profile (docs/performance.md). Statements are keyed by their SQL text and
 * evicted least recently used.
 * Safe because Kysely's SQLite driver runs one query at a time on its single connection; a
 * statement still iterating (a streamed query) is never handed out twice at once, since the
 * stream holds that connection until it ends.
 * `onCommit` is called each time a transaction that wrote ends (a COMMIT, a statement that writes
 * outside a transaction, or a ROLLBACK after writes): src/db/wal-sync.ts counts those.
 */
export function cachingDatabase(
  sqlite: SQLite.Database,
  onCommit: () => void = () => {},
  size = STATEMENT_CACHE_SIZE,
): SqliteDatabase & SyncStatements {
  const cache = new Map<string, SqliteStatement>();
  const state: ConnectionState = { endedBy: null, writes: 0, wrote: false, onCommit };
  return {
    all: <Row>(sql: string, parameters: readonly unknown[]) =>
      // better-sqlite3 binds an array as positional parameters
      prepare(sql).all(parameters) as Row[],
    run: (sql, parameters) => Number(prepare(sql).run(parameters).changes),
    writes: () => state.writes,
    inTransaction: () => sqlite.inTransaction,
    prepare,
    close(): void {
      cache.clear();
      sqlite.close();
    },
  };

  function prepare(sql: string): SqliteStatement {
    let stmt = cache.get(sql);
    if (stmt) {
      // re-insert: Map iteration order is the LRU order
      cache.delete(sql);
    } else {
      const prepared = sqlite.prepare(sql);
      const writes = !prepared.readonly;
      stmt = guarded(sqlite, prepared as unknown as SqliteStatement, writes, controlOf(sql), state);
      if (cache.size >= size) cache.delete(cache.keys().next().value as string);
    }
    cache.set(sql, stmt);
    return stmt;
  }
}
