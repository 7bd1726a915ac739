import { deleteOlderThan } from '#src/db/rows.js';
import type { Executor } from '#src/db/executor.js';
import { bulkInsert } from '#src/db/prepared.js';
import type { SyncStatements } from '#src/db/statement-cache.js';
import { pageWithTies } from '#src/db/paging.js';
import type { JournalTable } from '#src/db/types.js';

/** The journal table: written by the item writer only, read by the journal routes. */

export type JournalRow = Omit<JournalTable, 'seq'>;
export type StoredJournalRow = JournalRow & { seq: number };

const COLUMNS = [
  'id',
  'inventory_id',
  'at',
  'item_id',
  'item_name',
  'user_id',
  'username',
  'device_id',
  'op_id',
  'source',
  'kind',
  'delta',
  'quantity_after',
] as const satisfies readonly (keyof JournalRow)[];

const insert = bulkInsert('journal', COLUMNS, [
  'text',
  'text',
  'bigint',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'double precision',
  'double precision',
]);

/** SQLite, inside a synchronous write (Database.writeSync): inserts one row. */
export function insertJournalNow(sql: SyncStatements, row: JournalRow): void {
  insert.now(
    sql,
    COLUMNS.map((c) => row[c]),
  );
}

/** Inserts the rows in order (their `seq` orders rows of the same `at`). */
export async function insertJournal(
  db: Executor,
  rows: readonly JournalRow[],
  pace?: () => Promise<void>,
): Promise<void> {
  if (rows.length === 0) return;
  await insert(
    db,
    rows.map((row) => COLUMNS.map((c) => row[c])),
    pace,
  );
}

export interface JournalFilter {
  itemId?: string;
  userId?: string;
}

/** PostgreSQL returns bigints and serials as strings. */
const normalize = (row: StoredJournalRow): StoredJournalRow => ({
  ...row,
  seq: Number(row.seq),
  at: Number(row.at),
  delta: Number(row.delta),
  quantity_after: Number(row.quantity_after),
});

function filtered(db: Executor, inventoryId: string, filter: JournalFilter) {
  let query = db.selectFrom('journal').selectAll().where('inventory_id', '=', inventoryId);
  if (filter.itemId !== undefined) query = query.where('item_id', '=', filter.itemId);
  if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
  return query;
}

/**
 * The inventory's rows written before `before`, newest first: the newest `limit` of them plus
 * any others sharing the oldest one's `at`, so that paging on to `before=<oldest at>` skips none
 * (as messages page).
 */
export async function listJournal(
  db: Executor,
  inventoryId: string,
  filter: JournalFilter,
  before: number | null,
  limit: number,
): Promise<StoredJournalRow[]> {
  return pageWithTies({
    rows: () => filtered(db, inventoryId, filter),
    columns: ['at', 'seq'],
    normalize,
    before,
    limit,
  });
}

/** Removes the rows written before `cutoff`; returns how many. */
export function pruneJournal(db: Executor, cutoff: number): Promise<number> {
  return deleteOlderThan(db, 'journal', 'at', cutoff);
}
