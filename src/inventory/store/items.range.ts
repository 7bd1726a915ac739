import { AppError } from '#src/http/errors.js';
import { MAX_QUANTITY } from '#src/inventory/inventory.schemas.js';
import type { ItemState } from './items.merge.js';

/** The quantity bound of every item write (docs/api.md, "Quantities"). */

/** 422 `quantity_out_of_range`: the write would leave the item's quantity outside ±MAX_QUANTITY. */
function quantityOutOfRange(id: string, quantity: number): AppError {
  return new AppError(
    422,
    'quantity_out_of_range',
    `This write would make the quantity of item ${id} ${quantity}; a quantity stays from -${MAX_QUANTITY} to ${MAX_QUANTITY}. Nothing was written`,
  );
}

/**
 * True when `next` holds a quantity outside the bound that `before` did not hold (a row stored
 * out of range by an older version may still be written otherwise).
 */
export function leavesRange(before: ItemState | null, next: ItemState): boolean {
  const q = next.values.quantity;
  if (q >= -MAX_QUANTITY && q <= MAX_QUANTITY) return false;
  return before === null || before.values.quantity !== q;
}

export function assertQuantityInRange(id: string, before: ItemState | null, next: ItemState) {
  if (leavesRange(before, next)) throw quantityOutOfRange(id, next.values.quantity);
}
