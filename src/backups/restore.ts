import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { Kysely, Transaction } from 'kysely';
import type { Dialect } from '#src/db/database.js';
import { BACKFILLS } from '#src/db/migrate.js';
import * as repo from './backups.repository.js';
import { END_MARKER, FORMAT_VERSION, MAGIC, parseTableRows, TABLE_ROWS } from './dump-format.js';
import { DumpFormatError, readDump } from './dump-reader.js';

export class RestoreError extends Error {}

export interface RestoreSummary {
  tables: number;
  rows: number;
  sourceDialect: string;
  /** the migrations the backup was made at */
  migrations: string[];
  /** the rows of each table when the dump was made (a dump of an older Larder: null) */
  recordedRows: Record<string, number> | null;
}

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Restores a gzip-compressed Larder dump into an already migrated database, all in one
 * transaction: either every row arrives or none does. Refuses a database holding any row
 * unless `force`, which empties it first (inside the same transaction).
 */
export async function restoreDump(options: {
  db: Kysely<any>;
  dialect: Dialect;
  input: Readable;
  force: boolean;
}): Promise<RestoreSummary> {
  const { db, dialect } = options;
  const tables = await repo.listTables(db, dialect);
  const known = new Map(tables.map((t) => [t.name, t]));
  const applied = new Set(await repo.appliedMigrations(db));
  // The gunzip stream is opened right before reading (a stream failing while nobody listens
  // would crash the process); errors of the file itself are caught from the start.
  let text: Readable | null = null;
  let inputError: Error | null = null;
  options.input.on('error', (err) => {
    inputError = err;
    text?.destroy(err);
  });
  const openText = () => {
    if (inputError) throw inputError;
    text = options.input.pipe(createGunzip()).setEncoding('utf8');
    return text;
  };

  try {
    return await db.transaction().execute(async (trx) => {
      if (dialect === 'sqlite') await repo.deferForeignKeys(trx);
      await ensureEmpty(trx, tables, options.force);
      const summary = await insertAll(trx, openText(), known, applied);
      // a backup made by an older Larder: derive what the later migrations derived from its rows
      for (const name of [...applied].sort()) {
        if (!summary.migrations.includes(name)) await BACKFILLS[name]?.(trx);
      }
      if (dialect === 'postgres') {
        for (const t of tables) {
          for (const column of t.autoIncrementing) await repo.resetSequence(trx, t.name, column);
        }
      }
      return summary;
    });
  } catch (err) {
    (text as Readable | null)?.destroy();
    options.input.destroy();
    if (err instanceof DumpFormatError)
      throw new RestoreError(`not a valid backup: ${err.message}`);
    if ((err as { code?: string }).code === 'Z_DATA_ERROR' || /unexpected end/i.test(String(err))) {
      throw new RestoreError('the file is not a complete gzip-compressed backup');
    }
    throw err;
  }
}

async function ensureEmpty(trx: Transaction<any>, tables: repo.TableInfo[], force: boolean) {
  for (const t of [...tables].reverse()) {
    if (!(await repo.hasRows(trx, t.name))) continue;
    if (!force) {
      throw new RestoreError(
        `the database is not empty (table ${t.name} has rows); use --force to replace everything`,
      );
    }
    await repo.deleteAllRows(trx, t.name);
  }
}

async function insertAll(
  trx: Transaction<any>,
  text: Readable,
  known: Map<string, repo.TableInfo>,
  applied: Set<string>,
): Promise<RestoreSummary> {
  const summary: RestoreSummary = {
    tables: 0,
    rows: 0,
    sourceDialect: '',
    migrations: [],
    recordedRows: null,
  };
  const tablesSeen = new Set<string>();
  let header = 0;
  let finished = false;
  let declaredRows = NaN;
  const batch = { table: '', rows: [] as Record<string, unknown>[], max: 1 };
  const flush = async () => {
    await repo.insertRows(trx, batch.table, batch.rows);
    batch.rows = [];
  };

  for await (const statement of readDump(text)) {
    if (finished) throw new DumpFormatError('content after the end marker');
    if (statement.kind === 'comment') {
      const line = statement.text;
      if (header === 0 && line !== MAGIC) throw new DumpFormatError('missing "-- Larder backup"');
      header++;
      const [key, value = ''] = line.slice(3).split(/:\s?(.*)/s);
      if (key === 'format' && value !== FORMAT_VERSION) {
        throw new RestoreError(`unsupported backup format ${value}`);
      }
      if (key === 'dialect') summary.sourceDialect = value;
      if (key === TABLE_ROWS) summary.recordedRows = parseTableRows(value);
      if (key === 'migrations') {
        summary.migrations = value.split(',').filter((name) => name !== '');
        checkMigrations(summary.migrations, applied);
      }
      if (line.startsWith(END_MARKER)) {
        finished = true;
        declaredRows = Number(/^(\d+) rows$/.exec(value)?.[1] ?? NaN);
      }
      continue;
    }
    if (header === 0) throw new DumpFormatError('missing "-- Larder backup"');
    const table = known.get(statement.table);
    if (!table)
      throw new RestoreError(`the backup has a table this database lacks: ${statement.table}`);
    for (const c of statement.columns) {
      if (!table.columns.includes(c)) throw new RestoreError(`unknown column ${table.name}.${c}`);
    }
    if (batch.table !== table.name || batch.rows.length >= batch.max) {
      await flush();
      batch.table = table.name;
      // stay far below the bound-parameter limits of both databases
      batch.max = Math.max(1, Math.min(500, Math.floor(8000 / statement.columns.length)));
    }
    tablesSeen.add(table.name);
    batch.rows.push(Object.fromEntries(statement.columns.map((c, i) => [c, statement.values[i]])));
    summary.rows++;
  }
  await flush();
  if (!finished) throw new RestoreError('the backup is incomplete (no end marker)');
  if (declaredRows !== summary.rows) {
    throw new RestoreError(
      `the backup is damaged: its end marker counts ${declaredRows} rows, the file holds ${summary.rows}`,
    );
  }
  summary.tables = tablesSeen.size;
  return summary;
}

function checkMigrations(list: string[], applied: Set<string>): void {
  const unknown = list.filter((name) => !applied.has(name));
  if (unknown.length > 0) {
    throw new RestoreError(
      `the backup was made by a newer Larder (unknown migrations: ${unknown.join(', ')}); upgrade first`,
    );
  }
}
