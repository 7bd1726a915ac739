import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Database } from '#src/db/database.js';
import * as repo from './backups.repository.js';
import {
  END_MARKER,
  headerLines,
  insertPrefix,
  insertStatement,
  tableRowsLine,
} from './dump-format.js';
import { withSnapshot, type Snapshot } from './snapshot.js';

export interface DumpSummary {
  tables: number;
  rows: number;
}

/**
 * Writes a gzip-compressed dump of every table to `file` (created, never overwritten) from one
 * consistent snapshot. Rows stream from the database to the file in batches.
 */
export async function writeDump(options: {
  database: Database;
  sqliteFile: string;
  file: string;
  createdAt: number;
}): Promise<DumpSummary> {
  const { database } = options;
  const tables = await repo.listTables(database.db, database.dialect);
  const summary: DumpSummary = { tables: tables.length, rows: 0 };
  await withSnapshot(database, options.sqliteFile, async (snapshot) => {
    const header = headerLines({
      dialect: database.dialect,
      createdAt: options.createdAt,
      migrations: await snapshot.migrations(),
    });
    await pipeline(
      Readable.from(dumpText(snapshot, tables, header, summary)),
      createGzip({ level: 6 }),
      fs.createWriteStream(options.file, { flags: 'wx', mode: 0o600 }),
    );
  });
  const handle = await fs.promises.open(options.file, 'r+');
  try {
    await handle.sync(); // on disk before it is renamed into the list
  } finally {
    await handle.close();
  }
  return summary;
}

async function* dumpText(
  snapshot: Snapshot,
  tables: repo.TableInfo[],
  header: string,
  summary: DumpSummary,
): AsyncGenerator<string> {
  yield header;
  const counts: Record<string, number> = {};
  for (const table of tables) {
    yield `-- table: ${table.name}\n`;
    const prefix = insertPrefix(table.name, table.columns);
    let count = 0;
    for await (const rows of snapshot.rows(table.name)) {
      count += rows.length;
      yield rows.map((row) => insertStatement(prefix, table.columns, row)).join('');
    }
    counts[table.name] = count;
    summary.rows += count;
  }
  yield tableRowsLine(counts);
  yield `${END_MARKER} ${summary.rows} rows\n`;
}
