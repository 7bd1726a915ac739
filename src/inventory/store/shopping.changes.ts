import type { MutationContext } from './inventory.mutate.js';
import { deleteLevels } from './stock-levels.repository.js';
import { forgetItems } from './shopping.repository.js';

/**
 * A change of the shopping list inside an open write: one change-log record (entity `shopping`,
 * always an upsert: the list has no tombstones), so the revision moves, every member hears
 * inventoryUpdated and GET /api/inventory/changes says `shoppingListChanged: true`.
 */
export function shoppingChanged(ctx: MutationContext, entryId: string): void {
  ctx.changes.push({ entity: 'shopping', entityId: entryId, op: 'upsert' });
}

/**
 * Items the open write deleted: their minimum stock and derived entries' marks go, manual entries
 * keep their name without the item (called by the item writer).
 */
export async function itemsDeleted(ctx: MutationContext, itemIds: readonly string[]) {
  if (itemIds.length === 0) return;
  const levels = await deleteLevels(ctx.trx, ctx.inventoryId, itemIds);
  const entries = await forgetItems(ctx.trx, ctx.inventoryId, itemIds);
  if (levels.length > 0 || entries) shoppingChanged(ctx, 'items-deleted');
}
