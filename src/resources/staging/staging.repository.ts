import type { Executor } from '#src/db/executor.js';
import { findRow } from '#src/db/rows.js';
import type { StagedFilesTable } from '#src/db/types.js';

export type StagedRow = StagedFilesTable;

export function findStaged(db: Executor, adminId: string, filename: string) {
  return findRow(db, 'staged_files', { admin_id: adminId, filename });
}

export async function insertStaged(db: Executor, row: StagedRow): Promise<void> {
  await db.insertInto('staged_files').values(row).execute();
}

/** True when the row was there: a concurrent confirm of the same file finds it gone. */
export async function deleteStaged(db: Executor, id: string): Promise<boolean> {
  const result = await db.deleteFrom('staged_files').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export function stagedOlderThan(db: Executor, cutoff: number): Promise<StagedRow[]> {
  return db.selectFrom('staged_files').selectAll().where('created_at', '<', cutoff).execute();
}

export async function stagedStorageNames(db: Executor): Promise<Set<string>> {
  const rows = await db.selectFrom('staged_files').select(['admin_id', 'storage_name']).execute();
  return new Set(rows.map((r) => `${r.admin_id}/${r.storage_name}`));
}
