import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteAdapter, SqliteDialect, sql, type DialectAdapter } from 'kysely';
import type pg from 'pg';
import type { Config } from '#src/config.js';
import { createPrivateFile, secureDataDir } from './data-dir.js';
import { loadPg } from './pg.js';
import { createPool } from './pg-pool.js';
import { CurrentSchemaPostgresDialect } from './pg-introspector.js';
import { cachingDatabase } from './statement-cache.js';
import type { DB } from './types.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  /** PostgreSQL only: the pool settings, for a dedicated LISTEN connection. */
  pgConnection?: pg.ClientConfig;
  /**
   * SQLite only: PRAGMA data_version, which changes when another process (the CLI) commits to
   * the file; in-memory caches compare it to notice changes no event announced.
   */
  dataVersion?: () => number;
  destroy(): Promise<void>;
}

/**
 * SQLite runs DDL inside transactions, but Kysely's adapter says it does not, so its migrator
 * would apply each statement on its own: a process killed during a first start left half a
 * schema that the next start refused (`table "resources" already exists`). Saying so makes the
 * migrator wrap all pending migrations in one transaction, as it does on PostgreSQL.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class LarderSqliteDialect extends SqliteDialect {
  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

export function sqlitePath(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'larder.db');
}

/**
 * `onConnectionError`: a pooled PostgreSQL connection failed while idle (server restart, network
 * cut); the pool drops it and opens a new one when needed. Without a listener the process would
 * crash on pg's unhandled 'error' event.
 */
export async function createDatabase(
  config: Pick<Config, 'dataDir' | 'databaseUrl' | 'databaseSchema'>,
  onConnectionError: (err: Error) => void = () => {},
): Promise<Database> {
  secureDataDir(config.dataDir);
  if (config.databaseUrl === null) {
    // created 0600 before SQLite opens it: its -wal and -shm then get the same mode
    createPrivateFile(sqlitePath(config));
    const sqlite = new SQLite(sqlitePath(config));
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    // An answered write is on stable storage: in WAL mode FULL syncs the WAL at every commit
    // (NORMAL only at checkpoints, so a power cut could take back answered writes). Group
    // commit (src/db/group-commit.ts) shares that sync among the writes of one loop turn.
    sqlite.pragma('synchronous = FULL');
    const db = new Kysely<DB>({
      dialect: new LarderSqliteDialect({ database: cachingDatabase(sqlite) }),
    });
    const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
    return {
      db,
      dialect: 'sqlite',
      dataVersion: () => dataVersion.get() as number,
      destroy: () => db.destroy(),
    };
  }

  const pg = await loadPg();
  const schema = config.databaseSchema;
  const pgConnection: pg.ClientConfig = {
    connectionString: config.databaseUrl,
    options: `-c search_path=${schema}`,
  };
  if (schema !== 'public') {
    const client = new pg.Client({ connectionString: config.databaseUrl });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    } finally {
      await client.end();
    }
  }
  const pool = createPool(pg, pgConnection);
  pool.on('error', onConnectionError);
  const db = new Kysely<DB>({ dialect: new CurrentSchemaPostgresDialect({ pool }) });
  return { db, dialect: 'postgres', pgConnection, destroy: () => db.destroy() };
}

export async function pingDatabase(db: Kysely<DB>): Promise<void> {
  await sql`select 1`.execute(db);
}
