import type { ItemsStateTable } from '#src/db/types.js';

/** Items remembered (per items service); the least recently used are forgotten beyond this. */
const ITEM_CACHE_SIZE = 10_000;

/**
 * The items this instance last read or wrote with the one-statement PATCH (PostgreSQL), so a
 * PATCH of an item it knows needs no read before its write: one statement per PATCH. A row here
 * may be stale (another instance, or another kind of write, changed the item since): it is only
 * ever used for a write, which the statement makes only if the stored item is still exactly the
 * remembered row (every column, its revision included), so a stale row costs a refused
 * statement, after which the item is read again. An answer that writes nothing (the same
 * content, 409 stale_update) always comes from a fresh read.
 */
export function createItemCache(size = ITEM_CACHE_SIZE) {
  const rows = new Map<string, ItemsStateTable>();
  const key = (inventoryId: string, id: string) => JSON.stringify([inventoryId, id]);
  return {
    get(inventoryId: string, id: string): ItemsStateTable | undefined {
      return rows.get(key(inventoryId, id));
    },
    set(row: ItemsStateTable): void {
      const k = key(row.inventory_id, row.id);
      rows.delete(k); // (re)inserted last: the Map's order is the order of use
      rows.set(k, row);
      if (rows.size > size) rows.delete(rows.keys().next().value!);
    },
    /** Forgets `row` (found stale), unless a newer row of its item was remembered meanwhile. */
    forget(row: ItemsStateTable): void {
      const k = key(row.inventory_id, row.id);
      if (rows.get(k) === row) rows.delete(k);
    },
  };
}

export type ItemCache = ReturnType<typeof createItemCache>;
