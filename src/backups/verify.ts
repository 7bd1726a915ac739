import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { createDatabase } from '#src/db/database.js';
import { migrateToLatest } from '#src/db/migrate.js';
import * as repo from './backups.repository.js';
import { restoreDump, RestoreError } from './restore.js';

export interface VerifySummary {
  tables: number;
  rows: number;
}

/**
 * The restore drill (DESIGN "Faults"): restores a dump into a scratch SQLite database (a temp
 * folder, whatever the live dialect), then compares the rows of every table with the counts the
 * dump recorded about itself at dump time. Throws RestoreError saying what does not match; the
 * scratch database is removed either way.
 */
export async function verifyDump(input: Readable): Promise<VerifySummary> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-verify-'));
  try {
    const scratch = await createDatabase({ dataDir: dir, databaseUrl: null, databaseSchema: '' });
    try {
      await migrateToLatest(scratch.db);
      const summary = await restoreDump({ db: scratch.db, dialect: 'sqlite', input, force: false });
      const recorded = summary.recordedRows;
      if (recorded === null) {
        // a dump made before counts were recorded: its end marker's total was checked
        return { tables: summary.tables, rows: summary.rows };
      }
      const tables = await repo.listTables(scratch.db, 'sqlite');
      const differences: string[] = [];
      for (const [table, expected] of Object.entries(recorded)) {
        if (!tables.some((t) => t.name === table)) {
          differences.push(`${table}: recorded ${expected} rows, the table is missing`);
          continue;
        }
        const found = await repo.countRows(scratch.db, table);
        if (found !== expected) {
          differences.push(`${table}: recorded ${expected} rows, restored ${found}`);
        }
      }
      if (differences.length > 0) {
        throw new RestoreError(`the restored rows do not match: ${differences.join('; ')}`);
      }
      return { tables: Object.keys(recorded).length, rows: summary.rows };
    } finally {
      await scratch.destroy();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
