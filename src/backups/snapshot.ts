import SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database } from '#src/db/database.js';
import * as repo from './backups.repository.js';

/** One consistent, read-only view of the whole database, read table by table in batches. */
export interface Snapshot {
  migrations(): Promise<string[]>;
  rows(table: string): AsyncIterable<Record<string, unknown>[]>;
}

const BATCH_ROWS = 500;

/**
 * Runs `fn` on one consistent snapshot while the application keeps writing.
 * PostgreSQL: a REPEATABLE READ, READ ONLY transaction (rows come through a server-side
 * cursor). SQLite: a second, read-only connection holding one read transaction; in WAL mode
 * writers on the main connection go on and the snapshot does not see them. (Reading inside a
 * transaction of the main connection would stall every request until the dump is written.)
 */
export async function withSnapshot<T>(
  database: Database,
  sqliteFile: string,
  fn: (snapshot: Snapshot) => Promise<T>,
): Promise<T> {
  if (database.dialect === 'postgres') {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return (database.db as unknown as Kysely<any>)
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute(async (trx) => {
        let cursors = 0;
        return fn({
          migrations: () => repo.appliedMigrations(trx),
          rows: (table) => repo.readWithCursor(trx, table, `larder_dump_${++cursors}`, BATCH_ROWS),
        });
      });
  }
  const connection = new SQLite(sqliteFile, { readonly: true, fileMustExist: true });
  try {
    connection.pragma('busy_timeout = 5000');
    connection.exec('BEGIN');
    // the first read fixes the snapshot for the rest of the transaction
    const migrations = connection
      .prepare('select name from kysely_migration order by name')
      .pluck()
      .all() as string[];
    return await fn({
      migrations: async () => migrations,
      rows: (table) => sqliteRows(connection, table),
    });
  } finally {
    if (connection.inTransaction) connection.exec('COMMIT');
    connection.close();
  }
}

async function* sqliteRows(
  connection: SQLite.Database,
  table: string,
): AsyncGenerator<Record<string, unknown>[]> {
  const iterator = connection.prepare(`select * from "${table}"`).iterate() as IterableIterator<
    Record<string, unknown>
  >;
  try {
    let batch: Record<string, unknown>[] = [];
    for (const row of iterator) {
      batch.push(row);
      if (batch.length === BATCH_ROWS) {
        yield batch; // the consumer writes it out; other requests run meanwhile
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  } finally {
    iterator.return?.();
  }
}
