import type { Executor } from '#src/db/executor.js';
import { listItems } from './items.repository.js';
import { listNamed } from './named.repository.js';

/** Everything an export or an import plan reads of one inventory, in one go. */
export async function loadContents(db: Executor, inventoryId: string) {
  return {
    items: await listItems(db, inventoryId),
    categories: await listNamed(db, 'categories', inventoryId),
    locations: await listNamed(db, 'locations', inventoryId),
  };
}

export type Contents = Awaited<ReturnType<typeof loadContents>>;
