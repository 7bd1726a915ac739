import { deleteOlderThan } from '#src/db/rows.js';
import { ROWS_PER_INSERT, bulkInsert } from '#src/db/prepared.js';
import type { Executor } from '#src/db/executor.js';

/**
 * deleted_items: the ids a delete ended, so that an offline client's queued write to such an id
 * is refused rather than bringing the item back (docs/api.md, "Offline operations").
 */

/** Of `ids`, those a delete ended for the offline queue (deleted_items). */
export async function deletedAmong(
  db: Executor,
  inventoryId: string,
  ids: string[],
): Promise<Set<string>> {
  const out = new Set<string>();
  for (let i = 0; i < ids.length; i += ROWS_PER_INSERT) {
    const rows = await db
      .selectFrom('deleted_items')
      .select('item_id')
      .where('inventory_id', '=', inventoryId)
      .where('item_id', 'in', ids.slice(i, i + ROWS_PER_INSERT))
      .execute();
    for (const row of rows) out.add(row.item_id);
  }
  return out;
}

const insertDeleted = bulkInsert(
  'deleted_items',
  ['inventory_id', 'item_id', 'deleted_at'],
  ['text', 'text', 'bigint'],
);

/** Remembers that these ids were deleted (none of them is marked yet). */
export async function markDeleted(
  db: Executor,
  inventoryId: string,
  ids: string[],
  now: number,
  pace?: () => Promise<void>,
): Promise<void> {
  await insertDeleted(
    db,
    ids.map((id) => [inventoryId, id, now]),
    pace,
  );
}

/** Forgets the deletion of these ids (a REST write created them again). */
export async function unmarkDeleted(
  db: Executor,
  inventoryId: string,
  ids: string[],
): Promise<void> {
  for (let i = 0; i < ids.length; i += ROWS_PER_INSERT) {
    await db
      .deleteFrom('deleted_items')
      .where('inventory_id', '=', inventoryId)
      .where('item_id', 'in', ids.slice(i, i + ROWS_PER_INSERT))
      .execute();
  }
}

/** Forgets the deletion of every id that is an item again (after a whole-inventory PUT). */
export async function unmarkLiveItems(db: Executor, inventoryId: string): Promise<void> {
  await db
    .deleteFrom('deleted_items')
    .where('inventory_id', '=', inventoryId)
    .where('item_id', 'in', (eb) =>
      eb.selectFrom('items').select('items.id').where('items.inventory_id', '=', inventoryId),
    )
    .execute();
}

/** Forgets deletions older than `cutoff` (with the change history). */
export function pruneDeleted(db: Executor, cutoff: number): Promise<number> {
  return deleteOlderThan(db, 'deleted_items', 'deleted_at', cutoff);
}
