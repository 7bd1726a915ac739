import { AppError } from '#src/http/errors.js';
import type { Writer } from './journal.author.js';

/**
 * The caller as the inventory routes see it (an AuthUser fits): every route works on the
 * signed-in user's own inventory, never on one named in the request. Its id and name are what
 * the journal records of its writes.
 */
export interface Caller extends Writer {
  inventoryId: string | null;
}

export function noInventory(): AppError {
  return new AppError(
    409,
    'conflict',
    'Your account belongs to no inventory; ask an admin to assign one',
  );
}

/** The caller's inventory id, or 409 when the account belongs to none. */
export function inventoryOf(caller: Caller): string {
  if (!caller.inventoryId) throw noInventory();
  return caller.inventoryId;
}
