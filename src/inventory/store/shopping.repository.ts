import type { Executor } from '#src/db/executor.js';
import { deleteRows, findRow, findRows } from '#src/db/rows.js';
import type { ShoppingEntriesTable } from '#src/db/types.js';

/** The shopping_entries table: manual entries and the checked marks of derived ones. */

const normalize = (row: ShoppingEntriesTable): ShoppingEntriesTable => ({
  ...row,
  quantity: row.quantity === null ? null : Number(row.quantity),
  checked: Number(row.checked),
  created_at: Number(row.created_at),
  updated_at: Number(row.updated_at),
});

export async function listEntries(db: Executor, inventoryId: string) {
  const key = { inventory_id: inventoryId };
  return (await findRows(db, 'shopping_entries', key, ['created_at', 'id'])).map(normalize);
}

export async function findEntry(db: Executor, inventoryId: string, id: string) {
  const row = await findRow(db, 'shopping_entries', { inventory_id: inventoryId, id });
  return row && normalize(row);
}

export async function countManual(db: Executor, inventoryId: string): Promise<number> {
  const row = await db
    .selectFrom('shopping_entries')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('inventory_id', '=', inventoryId)
    .where('source', '=', 'manual')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function insertEntry(db: Executor, row: ShoppingEntriesTable): Promise<void> {
  await db.insertInto('shopping_entries').values(row).execute();
}

/** Inserts or replaces the row (a derived entry's checked mark). */
export async function upsertEntry(db: Executor, row: ShoppingEntriesTable): Promise<void> {
  const { inventory_id: _i, id: _id, created_at: _c, ...rest } = row;
  await db
    .insertInto('shopping_entries')
    .values(row)
    .onConflict((oc) => oc.columns(['inventory_id', 'id']).doUpdateSet(rest))
    .execute();
}

export async function updateEntry(
  db: Executor,
  inventoryId: string,
  id: string,
  set: Partial<Pick<ShoppingEntriesTable, 'name' | 'quantity' | 'checked' | 'updated_at'>>,
): Promise<void> {
  await db
    .updateTable('shopping_entries')
    .set(set)
    .where('inventory_id', '=', inventoryId)
    .where('id', '=', id)
    .execute();
}

export async function deleteEntry(db: Executor, inventoryId: string, id: string): Promise<number> {
  return deleteRows(db, 'shopping_entries', { inventory_id: inventoryId, id });
}

/**
 * Items that are gone: their derived entries' marks go, manual entries keep their name but no
 * longer point at them. Returns whether any row changed.
 */
export async function forgetItems(
  db: Executor,
  inventoryId: string,
  itemIds: readonly string[],
): Promise<boolean> {
  let changed = 0;
  for (let i = 0; i < itemIds.length; i += 500) {
    const ids = itemIds.slice(i, i + 500);
    const marks = await db
      .deleteFrom('shopping_entries')
      .where('inventory_id', '=', inventoryId)
      .where('source', '=', 'below_minimum')
      .where('item_id', 'in', ids)
      .executeTakeFirst();
    const detached = await db
      .updateTable('shopping_entries')
      .set({ item_id: null })
      .where('inventory_id', '=', inventoryId)
      .where('item_id', 'in', ids)
      .executeTakeFirst();
    changed += Number(marks.numDeletedRows) + Number(detached.numUpdatedRows);
  }
  return changed > 0;
}

export interface BelowMinimum {
  item_id: string;
  name: string;
  unit: string;
  quantity: number;
  min_quantity: number;
  target_quantity: number;
}

/** The items whose quantity is below their minimum stock (by name), or just `itemId`'s. */
export async function belowMinimum(
  db: Executor,
  inventoryId: string,
  itemId?: string,
): Promise<BelowMinimum[]> {
  let query = db
    .selectFrom('stock_levels')
    .innerJoin('items', (join) =>
      join
        .onRef('items.inventory_id', '=', 'stock_levels.inventory_id')
        .onRef('items.id', '=', 'stock_levels.item_id'),
    )
    .select([
      'items.id as item_id',
      'items.name',
      'items.unit',
      'items.quantity',
      'stock_levels.min_quantity',
      'stock_levels.target_quantity',
    ])
    .where('stock_levels.inventory_id', '=', inventoryId)
    .whereRef('items.quantity', '<', 'stock_levels.min_quantity');
  if (itemId !== undefined) query = query.where('stock_levels.item_id', '=', itemId);
  const rows = await query.orderBy('items.name').orderBy('items.id').execute();
  return rows.map((r) => ({
    ...r,
    quantity: Number(r.quantity),
    min_quantity: Number(r.min_quantity),
    target_quantity: Number(r.target_quantity),
  }));
}

/** Whether the shopping list changed after revision `since` (its own records, or an item with a minimum stock). */
export async function shoppingChangedSince(
  db: Executor,
  inventoryId: string,
  since: number,
): Promise<boolean> {
  const row = await db
    .selectFrom('change_log')
    .select('change_log.id')
    .where('change_log.inventory_id', '=', inventoryId)
    .where('change_log.revision', '>', since)
    .where((eb) =>
      eb.or([
        eb('change_log.entity', '=', 'shopping'),
        eb.and([
          eb('change_log.entity', '=', 'item'),
          eb.exists(
            eb
              .selectFrom('stock_levels')
              .select('stock_levels.item_id')
              .whereRef('stock_levels.inventory_id', '=', 'change_log.inventory_id')
              .whereRef('stock_levels.item_id', '=', 'change_log.entity_id'),
          ),
        ]),
      ]),
    )
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
