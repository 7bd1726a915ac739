import type { Kysely } from 'kysely';
import type { DB, StockLevelsTable } from '#src/db/types.js';
import { badRequest, notFound } from '#src/http/errors.js';
import { inventoryOf, type Caller } from '#src/inventory/store/inventory.caller.js';
import type { Mutate } from '#src/inventory/store/inventory.mutate.js';
import { findItem } from '#src/inventory/store/items.repository.js';
import { shoppingChanged } from '#src/inventory/store/shopping.changes.js';
import * as repo from '#src/inventory/store/stock-levels.repository.js';
import type { StockLevel, StockLevelInput } from './stock-levels.schemas.js';

const toLevel = (row: StockLevelsTable): StockLevel => ({
  itemId: row.item_id,
  minQuantity: row.min_quantity,
  targetQuantity: row.target_quantity,
});

/**
 * Minimum stock: per item, apart from the item's record (no app write erases it; deleting the
 * item deletes it, in the item writer). A change is a change of the shopping list: it bumps the
 * revision and sends inventoryUpdated (mutate).
 */
export function createStockLevelsService(deps: { db: Kysely<DB>; mutate: Mutate }) {
  const { db, mutate } = deps;
  return {
    async list(caller: Caller): Promise<{ levels: StockLevel[] }> {
      return { levels: (await repo.listLevels(db, inventoryOf(caller))).map(toLevel) };
    },

    set(caller: Caller, itemId: string, input: StockLevelInput): Promise<StockLevel> {
      const minQuantity = input.minQuantity;
      const targetQuantity = input.targetQuantity ?? minQuantity;
      if (targetQuantity < minQuantity) {
        throw badRequest(
          `body.targetQuantity (${targetQuantity}) must be at least body.minQuantity (${minQuantity})`,
        );
      }
      return mutate(inventoryOf(caller), async (ctx) => {
        if (!(await findItem(ctx.trx, ctx.inventoryId, itemId))) {
          throw notFound(`No item with id ${itemId}`);
        }
        const stored = await repo.findLevel(ctx.trx, ctx.inventoryId, itemId);
        const row = {
          inventory_id: ctx.inventoryId,
          item_id: itemId,
          min_quantity: minQuantity,
          target_quantity: targetQuantity,
          updated_at: ctx.now,
        };
        if (stored?.min_quantity !== minQuantity || stored.target_quantity !== targetQuantity) {
          await repo.upsertLevel(ctx.trx, row);
          shoppingChanged(ctx, `item:${itemId}`);
        }
        return toLevel(row);
      });
    },

    /** Idempotent: 204 also when the item has no level (or is gone). */
    remove(caller: Caller, itemId: string): Promise<void> {
      return mutate(inventoryOf(caller), async (ctx) => {
        const gone = await repo.deleteLevels(ctx.trx, ctx.inventoryId, [itemId]);
        if (gone.length > 0) shoppingChanged(ctx, `item:${itemId}`);
      });
    },
  };
}

export type StockLevelsService = ReturnType<typeof createStockLevelsService>;
