import { Prepared, bulkInsert } from '#src/db/prepared.js';
import type { Executor } from '#src/db/executor.js';
import type { ItemAdjustsTable } from '#src/db/types.js';
import { isLater } from './items.merge.js';

/**
 * item_adjusts: an item's counted adjusts, one row each, with the running sum after it. Queries
 * select by time only (`t`): the order of equal times (by op id, in UTF-16 code units) is the
 * merge rules' own (items.merge.ts isLater), never a database collation.
 */

const COLUMNS = ['inventory_id', 'item_id', 't', 'o', 'delta', 'total'] as const;
const SELECT = `select ${COLUMNS.map((c) => `"${c}"`).join(', ')} from "item_adjusts"`;
const ITEM = '"inventory_id" = ? and "item_id" = ?';

const fromTime = new Prepared<ItemAdjustsTable>(`${SELECT} where ${ITEM} and "t" >= ?`);
const betweenTimes = new Prepared<ItemAdjustsTable>(
  `${SELECT} where ${ITEM} and "t" >= ? and "t" <= ?`,
);
const latestBefore = new Prepared<ItemAdjustsTable>(
  `${SELECT} where ${ITEM} and "t" < ? order by "t" desc limit 1`,
);
const atTime = new Prepared<ItemAdjustsTable>(`${SELECT} where ${ITEM} and "t" = ?`);
const updateTotal = new Prepared(
  `update "item_adjusts" set "total" = ? where ${ITEM} and "t" = ? and "o" = ?`,
);
const deleteOne = new Prepared(`delete from "item_adjusts" where ${ITEM} and "t" = ? and "o" = ?`);
const deleteBefore = new Prepared(`delete from "item_adjusts" where ${ITEM} and "t" < ?`);
const insertRows = bulkInsert('item_adjusts', COLUMNS, [
  'text',
  'text',
  'bigint',
  'text',
  'double precision',
  'double precision',
]);

const numbers = (row: ItemAdjustsTable): ItemAdjustsTable => ({
  ...row,
  t: Number(row.t),
  delta: Number(row.delta),
  total: Number(row.total),
});

/** Rows with `t` from `from` (up to `to` when given). */
export async function adjustsFrom(
  db: Executor,
  inventoryId: string,
  itemId: string,
  from: number,
  to?: number,
): Promise<ItemAdjustsTable[]> {
  const rows =
    to === undefined
      ? await fromTime.all(db, [inventoryId, itemId, from])
      : await betweenTimes.all(db, [inventoryId, itemId, from, to]);
  return rows.map(numbers);
}

/** The rows at the latest time before `t` (all of them: equal times are ordered by op id). */
export async function adjustsJustBefore(
  db: Executor,
  inventoryId: string,
  itemId: string,
  t: number,
): Promise<ItemAdjustsTable[]> {
  const latest = await latestBefore.first(db, [inventoryId, itemId, t]);
  if (!latest) return [];
  return (await atTime.all(db, [inventoryId, itemId, latest.t])).map(numbers);
}

export async function insertAdjusts(
  db: Executor,
  rows: ItemAdjustsTable[],
  pace?: () => Promise<void>,
): Promise<void> {
  await insertRows(
    db,
    rows.map((r) => COLUMNS.map((c) => r[c])),
    pace,
  );
}

export async function setTotals(db: Executor, rows: ItemAdjustsTable[]): Promise<void> {
  for (const r of rows) await updateTotal.run(db, [r.total, r.inventory_id, r.item_id, r.t, r.o]);
}

/** Deletes the rows before time `t` and the given ones (those at `t` the cut includes). */
export async function deleteAdjusts(
  db: Executor,
  inventoryId: string,
  itemId: string,
  beforeT: number,
  rows: ItemAdjustsTable[],
): Promise<void> {
  await deleteBefore.run(db, [inventoryId, itemId, beforeT]);
  for (const r of rows) await deleteOne.run(db, [inventoryId, itemId, r.t, r.o]);
}

/** Forgets the adjusts of deleted items. */
export async function deleteAdjustsOf(
  db: Executor,
  inventoryId: string,
  itemIds: string[],
): Promise<void> {
  for (let i = 0; i < itemIds.length; i += 500) {
    await db
      .deleteFrom('item_adjusts')
      .where('inventory_id', '=', inventoryId)
      .where('item_id', 'in', itemIds.slice(i, i + 500))
      .execute();
  }
}

/**
 * The oldest rows first, through the index on `t` (item_adjusts_t_idx): the read costs the rows
 * to fold, not the table. A plain `select distinct … where t < ?` scanned the primary key (it
 * starts with the inventory and the item) on both dialects.
 */
const foldable = new Prepared<{ inventory_id: string; item_id: string }>(
  'select distinct "inventory_id", "item_id" from (select "inventory_id", "item_id" from "item_adjusts" where "t" < ? order by "t" limit 10000) as "oldest" limit 500',
);

/** Items with adjusts made before `cutoff` (up to 500 at a time; none: there are none left). */
export async function itemsWithAdjustsBefore(db: Executor, cutoff: number) {
  return foldable.all(db, [cutoff]);
}

/**
 * Deletes the item's adjusts made before `cutoff`; returns the running sum after the last of
 * them (what the item's base becomes), or null when there were none.
 */
export async function foldAdjustsBefore(
  db: Executor,
  inventoryId: string,
  itemId: string,
  cutoff: number,
): Promise<number | null> {
  const rows = await adjustsJustBefore(db, inventoryId, itemId, cutoff);
  const last = rows.reduce<ItemAdjustsTable | null>(
    (best, r) => (best === null || isLater(r, best) ? r : best),
    null,
  );
  if (last === null) return null;
  await deleteBefore.run(db, [inventoryId, itemId, cutoff]);
  return last.total;
}
