import type { Executor } from '#src/db/executor.js';
import { findRow, findRows } from '#src/db/rows.js';
import type { StockLevelsTable } from '#src/db/types.js';

/** The stock_levels table: an item's minimum and target quantity, apart from its item row. */

const normalize = (row: StockLevelsTable): StockLevelsTable => ({
  ...row,
  min_quantity: Number(row.min_quantity),
  target_quantity: Number(row.target_quantity),
  updated_at: Number(row.updated_at),
});

export async function listLevels(db: Executor, inventoryId: string): Promise<StockLevelsTable[]> {
  const key = { inventory_id: inventoryId };
  return (await findRows(db, 'stock_levels', key, ['item_id'])).map(normalize);
}

export async function findLevel(db: Executor, inventoryId: string, itemId: string) {
  const row = await findRow(db, 'stock_levels', { inventory_id: inventoryId, item_id: itemId });
  return row && normalize(row);
}

export async function upsertLevel(db: Executor, row: StockLevelsTable): Promise<void> {
  await db
    .insertInto('stock_levels')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['inventory_id', 'item_id']).doUpdateSet({
        min_quantity: row.min_quantity,
        target_quantity: row.target_quantity,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

/** Deletes the levels of `itemIds`; returns the item ids that had one. */
export async function deleteLevels(
  db: Executor,
  inventoryId: string,
  itemIds: readonly string[],
): Promise<string[]> {
  if (itemIds.length === 0) return [];
  const deleted: string[] = [];
  for (let i = 0; i < itemIds.length; i += 500) {
    const rows = await db
      .deleteFrom('stock_levels')
      .where('inventory_id', '=', inventoryId)
      .where('item_id', 'in', itemIds.slice(i, i + 500))
      .returning('item_id')
      .execute();
    deleted.push(...rows.map((r) => r.item_id));
  }
  return deleted;
}
