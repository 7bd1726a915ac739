import path from 'node:path';
import SQLite from 'better-sqlite3';
import {
  Kysely,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  type SqliteDialectConfig,
} from 'kysely';
import type pg from 'pg';
import type { Config } from '#src/config.js';
import { createPrivateFile, secureDataDir } from './data-dir.js';
import {
  createGroupCommit,
  type SyncWriteTransaction,
  type WriteStatement,
  type WriteTransaction,
} from './group-commit.js';
import { loadPg } from './pg.js';
import { createPool } from './pg-pool.js';
import { CurrentSchemaPostgresDialect } from './pg-introspector.js';
import { cachingDatabase } from './statement-cache.js';
import type { DB } from './types.js';
import { WalSync } from './wal-sync.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  /**
   * The transaction of the writes a request waits for (an inventory's, a message, a push
   * delivery's). SQLite: one group commit (group-commit.ts) for all of them, so the writes that
   * arrive together share a COMMIT and its sync. PostgreSQL: a transaction of its own per write
   * (rows are locked there and writes run in parallel on the pool).
   */
  write: WriteTransaction;
  /** A write of one statement: on SQLite in that group commit, on PostgreSQL on its own. */
  writeOne: WriteStatement;
  /**
   * SQLite only: a write run synchronously on the connection's statements in that group commit,
   * without Kysely and without a savepoint (it may run again instead: group-commit.ts).
   */
  writeSync?: SyncWriteTransaction;
  /** PostgreSQL only: the pool settings, for a dedicated LISTEN connection. */
  pgConnection?: pg.ClientConfig;
  /**
   * SQLite only: PRAGMA data_version, which changes when another process (the CLI) commits to
   * the file; in-memory caches compare it to notice changes no event announced.
   */
  dataVersion?: () => number;
  /**
   * Whether the database answers (`select 1`), for /health, never queued behind writes: on
   * SQLite straight on the file's handle, not through the one connection a write transaction
   * holds (the handle is synchronous, so the statement runs between the write's own); on
   * PostgreSQL on a connection of its own, outside the pool the requests share.
   */
  ping(): Promise<void>;
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
  /** The driver below holds the connection's lock itself (it must release it before the sync). */
  override get supportsMultipleConnections(): boolean {
    return true;
  }
}

/** One holder at a time of the single connection, in the order they asked. */
class ConnectionLock {
  #held = false;
  #queue: (() => void)[] = [];

  obtain(): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#queue.push(resolve));
  }

  release(): void {
    const next = this.#queue.shift();
    if (next) next();
    else this.#held = false;
  }
}

/**
 * Kysely's SQLite driver, made durable without blocking the loop: a query or transaction gives
 * the connection back at once, and its caller gets the result only once everything committed so
 * far is on stable storage (src/db/wal-sync.ts). A write is then never answered before it is
 * durable, nor a read answered with a commit that is not. Meanwhile the next holder already runs.
 */
class DurableSqliteDriver extends SqliteDriver {
  readonly #lock = new ConnectionLock();
  constructor(
    config: SqliteDialectConfig,
    readonly wal: WalSync,
  ) {
    super(config);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    await this.#lock.obtain();
    return super.acquireConnection();
  }

  override async releaseConnection(): Promise<void> {
    this.#lock.release();
    await this.wal.durable();
  }

  override async destroy(): Promise<void> {
    await super.destroy();
    await this.wal.close();
  }
}

class LarderSqliteDialect extends SqliteDialect {
  constructor(
    readonly config: SqliteDialectConfig,
    readonly wal: WalSync,
  ) {
    super(config);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }

  override createDriver(): Driver {
    return new DurableSqliteDriver(this.config, this.wal);
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
    // An answered write is on stable storage, but SQLite does not sync the WAL inside COMMIT,
    // which would block the event loop for the disk's time: NORMAL syncs it only at checkpoints,
    // and the driver waits for a sync of the WAL (wal-sync.ts, on libuv's pool) before any
    // query or transaction answers. Commits made while one sync runs share the next.
    sqlite.pragma('synchronous = NORMAL');
    const wal = new WalSync(`${sqlitePath(config)}-wal`, config.dataDir);
    const database = cachingDatabase(sqlite, () => wal.committed());
    const db = new Kysely<DB>({ dialect: new LarderSqliteDialect({ database }, wal) });
    const write = createGroupCommit(db, { statements: database });
    const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
    const one = sqlite.prepare('select 1').pluck();
    return {
      db,
      dialect: 'sqlite',
      write,
      writeOne: write,
      writeSync: write.sync,
      dataVersion: () => dataVersion.get() as number,
      ping: async () => {
        try {
          one.get();
        } catch (err) {
          // a row iterator (a backup's dump) is open on the handle: it is working
          if (!(err instanceof TypeError && /busy/i.test(err.message))) throw err;
        }
      },
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
  // /health's own connection: a pool whose every connection is lent to writes does not hold it up
  const healthPool = createPool(pg, pgConnection, { max: 1 });
  healthPool.on('error', onConnectionError);
  const db = new Kysely<DB>({ dialect: new CurrentSchemaPostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    write: (work) => db.transaction().execute(work),
    writeOne: (work) => work(db),
    pgConnection,
    ping: async () => {
      await healthPool.query('select 1');
    },
    destroy: async () => {
      await db.destroy();
      await healthPool.end();
    },
  };
}
