import type { Executor } from '#src/db/executor.js';
import { Prepared } from '#src/db/prepared.js';

/**
 * The readiness reads: aggregates only, never a row per item in the answer's hot part. The stock
 * is summed per unit, category and kcal presence (a few dozen groups for any inventory); the
 * consumption is summed per item from the journal, a page of items at a time in item order (the
 * journal's (inventory, item, at) index), so each statement is a bounded slice of the event loop.
 */

/** Items summed by the three things readiness tells apart: unit, category, kcal known or not. */
export interface StockGroup {
  unit: string;
  category_id: number;
  has_kcal: number | string;
  items: number | string;
  quantity: number | string;
  /** Σ quantity × kcalPerKg of the group's items that have kcalPerKg */
  kcal_quantity: number | string | null;
}

const stockGroups = new Prepared<StockGroup>(
  `select "unit", "category_id",
          case when "kcal_per_kg" is null then 0 else 1 end as "has_kcal",
          count(*) as "items",
          sum("quantity") as "quantity",
          sum("quantity" * "kcal_per_kg") as "kcal_quantity"
     from "items" where "inventory_id" = ?
    group by "unit", "category_id", case when "kcal_per_kg" is null then 0 else 1 end`,
);

export function sumStock(db: Executor, inventoryId: string): Promise<StockGroup[]> {
  return stockGroups.all(db, [inventoryId]);
}

/** An item the journal shows used since the window's start, with what it holds now. */
export interface UsedItem {
  item_id: string;
  name: string;
  quantity: number | string;
  expiry_date: string | null;
  /** Σ of the negative deltas, as a positive number */
  used: number | string;
}

/** Items used per page: a page is a few milliseconds of SQLite on the event loop. */
export const USED_PAGE = 2000;

const usedPage = new Prepared<UsedItem>(
  `select "j"."item_id", "i"."name", "i"."quantity", "i"."expiry_date", -sum("j"."delta") as "used"
     from "journal" "j"
     join "items" "i" on "i"."inventory_id" = "j"."inventory_id" and "i"."id" = "j"."item_id"
    where "j"."inventory_id" = ? and "j"."item_id" > ? and "j"."at" > ? and "j"."at" <= ?
      and "j"."delta" < 0
    group by "j"."item_id", "i"."name", "i"."quantity", "i"."expiry_date"
    order by "j"."item_id"
    limit ${USED_PAGE}`,
);

/**
 * Every item still in the inventory with a negative journal delta in (`from`, `to`], and the sum
 * of those deltas; items gone since are left out. `pace` is awaited between pages.
 */
export async function usedSince(
  db: Executor,
  inventoryId: string,
  from: number,
  to: number,
  pace: () => Promise<void>,
): Promise<UsedItem[]> {
  const out: UsedItem[] = [];
  let after = '';
  for (;;) {
    const rows = await usedPage.all(db, [inventoryId, after, from, to]);
    for (const row of rows) out.push(row);
    if (rows.length < USED_PAGE) return out;
    after = rows[rows.length - 1]!.item_id;
    await pace();
  }
}
