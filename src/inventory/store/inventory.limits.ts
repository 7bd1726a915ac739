import type { Executor } from '#src/db/executor.js';
import { AppError } from '#src/http/errors.js';
import { itemCount } from './items.repository.js';

/**
 * The most items one inventory may hold. A household has hundreds; the cap keeps the largest
 * whole-inventory read or write within the event-loop budget measured at this size
 * (docs/performance.md, "Inventory: cap, snapshot cache, prepared writes").
 */
export const MAX_ITEMS_PER_INVENTORY = 20_000;

/** 422 `inventory_full`: the write would take the inventory over the cap; nothing was written. */
export function inventoryFull(wouldHold: number): AppError {
  return new AppError(
    422,
    'inventory_full',
    `An inventory holds at most ${MAX_ITEMS_PER_INVENTORY} items; this write would make it ${wouldHold}. Nothing was written`,
    { maxItems: MAX_ITEMS_PER_INVENTORY },
  );
}

/**
 * Throws inventory_full when the inventory would hold more than the cap once `adding` new items
 * are added to what it holds now. Call inside the write's transaction (mutate does it for every
 * write that declares new items in `ctx.itemsAdded`), so a refused write rolls back whole.
 */
export async function assertItemRoom(db: Executor, inventoryId: string, adding: number) {
  if (adding <= 0) return;
  const total = (await itemCount(db, inventoryId)) + adding;
  if (total > MAX_ITEMS_PER_INVENTORY) throw inventoryFull(total);
}
