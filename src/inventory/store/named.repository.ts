import type { Executor } from '#src/db/executor.js';
import { Prepared } from '#src/db/prepared.js';
import type { NamedEntityTable } from '#src/db/types.js';
import { conflict } from '#src/http/errors.js';
import { chunks } from './inventory.repository.js';

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
  return findOne(db, table, inventoryId, { id });
}

export function findNamedByKey(db: Executor, table: NamedTable, inventoryId: string, key: string) {
  return findOne(db, table, inventoryId, { name_key: key });
}

function findOne(
  db: Executor,
  table: NamedTable,
  inventoryId: string,
  match: { id: number } | { name_key: string },
) {
  return db
    .selectFrom(table)
    .selectAll()
    .where('inventory_id', '=', inventoryId)
    .where((eb) => eb.and(match))
    .executeTakeFirst();
}

// every item write that changes its category or location asks: prepared once (db/prepared.ts)
const bothExist = new Prepared<{ category: number | null; location: number | null }>(
  'select (select 1 from "categories" where "inventory_id" = ? and "id" = ?) as "category", ' +
    '(select 1 from "locations" where "inventory_id" = ? and "id" = ?) as "location"',
);

/** Whether the category and the location exist in the inventory: one query for both. */
export async function namedExist(
  db: Executor,
  inventoryId: string,
  categoryId: number,
  locationId: number,
): Promise<{ category: boolean; location: boolean }> {
  const row = await bothExist.first(db, [inventoryId, categoryId, inventoryId, locationId]);
  return { category: row?.category != null, location: row?.location != null };
}

/** The largest id the routes accept (`NamedId`): PostgreSQL's integer. */
const MAX_NAMED_ID = 2_147_483_647;

/**
 * `count` ids for new records: after the largest one while they fit under MAX_NAMED_ID (a client
 * may have taken 2147483647 itself), else the lowest free ones; 409 when fewer are left.
 */
export async function nextNamedIds(
  db: Executor,
  table: NamedTable,
  inventoryId: string,
  count: number,
): Promise<number[]> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.max('id').as('max'))
    .where('inventory_id', '=', inventoryId)
    .executeTakeFirst();
  const max = Number(row?.max ?? 0);
  if (max + count <= MAX_NAMED_ID) return Array.from({ length: count }, (_, i) => max + 1 + i);
  const taken = (
    await db
      .selectFrom(table)
      .select('id')
      .where('inventory_id', '=', inventoryId)
      .orderBy('id')
      .execute()
  ).map((r) => Number(r.id));
  const free: number[] = [];
  let candidate = 1;
  for (const id of [...taken, MAX_NAMED_ID + 1]) {
    for (; candidate < id && free.length < count; candidate++) free.push(candidate);
    if (free.length === count) return free;
    candidate = id + 1;
  }
  throw conflict(
    `No ${table === 'categories' ? 'category' : 'location'} id is left below ${MAX_NAMED_ID}`,
  );
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
