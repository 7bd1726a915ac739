import type { Executor } from '../../db/executor.js';
import type { ItemsTable } from '../../db/types.js';
import { chunks } from '../inventory.repository.js';

export function listItems(db: Executor, inventoryId: string, sinceRevision = -1) {
  return db
    .selectFrom('items')
    .selectAll()
    .where('inventory_id', '=', inventoryId)
    .where('revision', '>', sinceRevision)
    .orderBy('id')
    .execute();
}

export function findItem(db: Executor, inventoryId: string, id: string) {
  return db
    .selectFrom('items')
    .selectAll()
    .where('inventory_id', '=', inventoryId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function upsertItem(db: Executor, row: ItemsTable): Promise<void> {
  const { inventory_id: _inventory, id: _id, ...fields } = row;
  await db
    .insertInto('items')
    .values(row)
    .onConflict((oc) => oc.columns(['inventory_id', 'id']).doUpdateSet(fields))
    .execute();
}

export async function insertItems(db: Executor, rows: ItemsTable[]): Promise<void> {
  for (const part of chunks(rows)) await db.insertInto('items').values(part).execute();
}

export async function deleteItems(db: Executor, inventoryId: string, ids: string[]) {
  let deleted = 0;
  for (const part of chunks(ids)) {
    const result = await db
      .deleteFrom('items')
      .where('inventory_id', '=', inventoryId)
      .where('id', 'in', part)
      .executeTakeFirst();
    deleted += Number(result.numDeletedRows);
  }
  return deleted;
}

/** How many items refer to the category or location. */
export async function countItemsUsing(
  db: Executor,
  inventoryId: string,
  column: 'category_id' | 'location_id',
  id: number,
) {
  const row = await db
    .selectFrom('items')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('inventory_id', '=', inventoryId)
    .where(column, '=', id)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
