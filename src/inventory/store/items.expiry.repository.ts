import type { Executor } from '#src/db/executor.js';
import { ROWS_PER_INSERT } from '#src/db/prepared.js';

/**
 * The soonest expiry date (YYYY-MM-DD) of each inventory's items that have one; an inventory with
 * none is left out. The daily digest asks this once for a page of inventories, so one with nothing
 * expiring within its notice days needs no query of its own (src/expiry/expiry.service.ts).
 */
export async function soonestExpiries(
  db: Executor,
  inventoryIds: readonly string[],
): Promise<Map<string, string>> {
  const soonest = new Map<string, string>();
  for (let i = 0; i < inventoryIds.length; i += ROWS_PER_INSERT) {
    const rows = await db
      .selectFrom('items')
      .select(['inventory_id', (eb) => eb.fn.min<string>('expiry_date').as('soonest')])
      .where('inventory_id', 'in', inventoryIds.slice(i, i + ROWS_PER_INSERT))
      .where('expiry_date', 'is not', null)
      .groupBy('inventory_id')
      .execute();
    for (const row of rows) soonest.set(row.inventory_id, row.soonest);
  }
  return soonest;
}
