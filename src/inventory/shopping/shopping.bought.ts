import crypto from 'node:crypto';
import { badRequest, conflict } from '#src/http/errors.js';
import { itemFields } from '#src/inventory/store/inventory.mapper.js';
import type { MutationContext } from '#src/inventory/store/inventory.mutate.js';
import type { Item, ItemInput } from '#src/inventory/inventory.schemas.js';
import { restWrite } from '#src/inventory/store/items.patch.js';
import { openItems } from '#src/inventory/store/items.writer.js';
import { namedExist } from '#src/inventory/store/named.repository.js';

/**
 * What bought writes through the one item writer (items/items.writer.ts), as the context's
 * author (source `shopping`): the writer journals it like any other change.
 */

/**
 * quantity += `quantity` as an adjust stamped now (or at the item's last edit, when a phone's
 * clock put that ahead), so it counts after every absolute quantity stored: two members buying
 * at once each add theirs. 422 quantity_out_of_range as other writes.
 */
export async function addBought(ctx: MutationContext, itemId: string, quantity: number) {
  const items = await openItems(ctx, [itemId]);
  const current = items.item(itemId)!;
  const stamp = { t: Math.max(ctx.now, current.lastUpdated), o: `shopping:${crypto.randomUUID()}` };
  await items.adjust(itemId, quantity, stamp, null);
  await items.flush();
  return items.item(itemId)!;
}

/** Creates `input` as a new item (the writer counts it against the item cap). */
export async function createBought(ctx: MutationContext, input: ItemInput): Promise<Item> {
  const id = input.id ?? crypto.randomUUID();
  const lastUpdated = input.lastUpdated === undefined ? undefined : ctx.clamp(input.lastUpdated);
  const fields = itemFields({ ...input, lastUpdated }, ctx.now);
  const found = await namedExist(ctx.trx, ctx.inventoryId, fields.category_id, fields.location_id);
  if (!found.category) {
    throw badRequest(
      `body.createItem.categoryId: there is no category ${fields.category_id} in your inventory`,
    );
  }
  if (!found.location) {
    throw badRequest(
      `body.createItem.locationId: there is no location ${fields.location_id} in your inventory`,
    );
  }
  const items = await openItems(ctx, [id]);
  if (items.exists(id)) throw conflict(`An item with id ${id} already exists`);
  const { values, stamp } = restWrite(fields, lastUpdated, ctx.now, 0);
  await items.write(id, values, stamp);
  await items.flush();
  return items.item(id)!;
}
