import type { Executor } from '../../db/executor.js';
import type { NamedEntityTable } from '../../db/types.js';
import { chunks } from '../inventory.repository.js';

/** Categories and locations: two tables of the same shape. */
export type NamedTable = 'categories' | 'locations';

export function listNamed(db: Executor, table: NamedTable, inventoryId: string, since = -1) {
  return db
    .selectFrom(table)
    .selectAll()
    .where('inventory_id', '=', inventoryId)
    .where('revision', '>', since)
    .orderBy('id')
    .execute();
}

export function findNamed(db: Executor, table: NamedTable, inventoryId: string, id: number) {
  return db
    .selectFrom(table)
    .selectAll()
    .where('inventory_id', '=', inventoryId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findNamedByKey(db: Executor, table: NamedTable, inventoryId: string, key: string) {
  return db
    .selectFrom(table)
    .selectAll()
    .where('inventory_id', '=', inventoryId)
    .where('name_key', '=', key)
    .executeTakeFirst();
}

export async function nextNamedId(db: Executor, table: NamedTable, inventoryId: string) {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.max('id').as('max'))
    .where('inventory_id', '=', inventoryId)
    .executeTakeFirst();
  return Number(row?.max ?? 0) + 1;
}

export async function insertNamed(db: Executor, table: NamedTable, rows: NamedEntityTable[]) {
  for (const part of chunks(rows)) await db.insertInto(table).values(part).execute();
}

export async function updateNamed(db: Executor, table: NamedTable, row: NamedEntityTable) {
  await db
    .updateTable(table)
    .set({
      name: row.name,
      name_key: row.name_key,
      revision: row.revision,
      updated_at: row.updated_at,
    })
    .where('inventory_id', '=', row.inventory_id)
    .where('id', '=', row.id)
    .execute();
}

export async function deleteNamed(
  db: Executor,
  table: NamedTable,
  inventoryId: string,
  ids: number[],
) {
  for (const part of chunks(ids)) {
    await db
      .deleteFrom(table)
      .where('inventory_id', '=', inventoryId)
      .where('id', 'in', part)
      .execute();
  }
}
