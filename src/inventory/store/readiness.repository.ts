import type { Executor } from '#src/db/executor.js';
import { Prepared } from '#src/db/prepared.js';

/**
 * The readiness reads, each a page of items at a time in primary-key order, so that a statement
 * is a bounded slice of the event loop (SQLite runs on it): the stock summed per unit, category
 * and kcal presence (a few dozen groups for any inventory), and each item's use in the window
 * summed from the journal.
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

/** Items per page of the stock sums and items per page of the use sums. */
const STOCK_PAGE = 5000;
const USED_PAGE = 1000;

// a page of items in primary-key order, summed; `last_id` (the same in every group of a page:
// the page's last item) is where the next page starts
const stockPage = new Prepared<StockGroup & { last_id: string }>(
  `select "unit", "category_id", "has_kcal", count(*) as "items", sum("quantity") as "quantity",
          sum("quantity" * "kcal_per_kg") as "kcal_quantity",
          max(max("id")) over () as "last_id"
     from (select "id", "unit", "category_id", "quantity", "kcal_per_kg",
                  case when "kcal_per_kg" is null then 0 else 1 end as "has_kcal"
             from "items" where "inventory_id" = ? and "id" > ?
            order by "id" limit ${STOCK_PAGE}) "page"
    group by "unit", "category_id", "has_kcal"`,
);

/** The inventory's items summed per unit, category and kcal presence, a page at a time. */
export async function sumStock(
  db: Executor,
  inventoryId: string,
  pace: () => Promise<void>,
): Promise<StockGroup[]> {
  const groups = new Map<string, StockGroup>();
  let after = '';
  for (;;) {
    const rows = await stockPage.all(db, [inventoryId, after]);
    let counted = 0;
    for (const { last_id: _, ...row } of rows) {
      counted += Number(row.items);
      const key = JSON.stringify([row.unit, row.category_id, Number(row.has_kcal)]);
      const seen = groups.get(key);
      if (!seen) groups.set(key, row);
      else {
        seen.items = Number(seen.items) + Number(row.items);
        seen.quantity = Number(seen.quantity) + Number(row.quantity);
        seen.kcal_quantity = Number(seen.kcal_quantity ?? 0) + Number(row.kcal_quantity ?? 0);
      }
    }
    if (counted < STOCK_PAGE) return [...groups.values()];
    after = rows[0]!.last_id;
    await pace();
  }
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

// a page of items in primary-key order, each with its use summed by a seek into the journal's
// (inventory_id, item_id, at) index: only the window's rows are read, however long the journal
const usedPage = new Prepared<Omit<UsedItem, 'used'> & { used: number | string | null }>(
  `select "i"."id" as "item_id", "i"."name", "i"."quantity", "i"."expiry_date",
          (select -sum("j"."delta") from "journal" "j"
            where "j"."inventory_id" = "i"."inventory_id" and "j"."item_id" = "i"."id"
              and "j"."at" > ? and "j"."at" <= ? and "j"."delta" < 0) as "used"
     from "items" "i" where "i"."inventory_id" = ? and "i"."id" > ?
    order by "i"."id" limit ${USED_PAGE}`,
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
    const rows = await usedPage.all(db, [from, to, inventoryId, after]);
    for (const row of rows) if (row.used !== null) out.push(row as UsedItem);
    if (rows.length < USED_PAGE) return out;
    after = rows[rows.length - 1]!.item_id;
    await pace();
  }
}
