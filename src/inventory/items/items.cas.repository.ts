import { Prepared } from '#src/db/prepared.js';
import type { Executor } from '#src/db/executor.js';
import type { ItemsStateTable } from '#src/db/types.js';
import { STATE_COLUMNS } from './items.repository.js';

/** The columns a write of one item sets (its keys stay; its revision is the bumped one). */
const SET = STATE_COLUMNS.filter((c) => c !== 'inventory_id' && c !== 'id' && c !== 'revision');

/**
 * PostgreSQL only: one statement (autocommit, so atomic on its own) that locks the inventory's
 * row, updates the item only if it is still as read (same revision and merge state: every write
 * that changes an item changes one of them), bumps the inventory's revision and logs the change.
 * Locking the inventory first keeps the change log gapless, as the transaction path does: a
 * waiting statement reads the revision its predecessor committed (FOR UPDATE in READ COMMITTED),
 * and an item changed meanwhile no longer matches (its UPDATE re-checks the newest row).
 */
const casUpdate = new Prepared<{ revision: number | string }>(
  `with "inv" as (select "revision" from "inventories" where "id" = ? for update),
  "item" as (
    update "items" set ${SET.map((c) => `"${c}" = ?`).join(', ')},
      "revision" = (select "revision" + 1 from "inv")
    where "inventory_id" = ? and "id" = ? and "revision" = ? and "merge_state" = ?
      and exists (select 1 from "inv")
    returning "revision"
  ),
  "bump" as (
    update "inventories" set "revision" = "revision" + 1
    where "id" = ? and exists (select 1 from "item")
    returning "revision"
  ),
  "log" as (
    insert into "change_log" ("inventory_id", "revision", "entity", "entity_id", "op", "changed_at")
    select ?, "revision", 'item', ?, 'upsert', ? from "bump"
  )
  select "revision" from "bump"`,
);

/**
 * Writes `row` over the stored item `read` (PostgreSQL), bumping the revision and logging one
 * item upsert at `changedAt`; returns the new revision, or null when the stored item (or the
 * inventory) is no longer as read.
 */
export async function casUpdateItem(
  db: Executor,
  read: ItemsStateTable,
  row: ItemsStateTable,
  changedAt: number,
): Promise<number | null> {
  const inventoryId = read.inventory_id;
  const found = await casUpdate.first(db, [
    inventoryId,
    ...SET.map((c) => row[c]),
    inventoryId,
    read.id,
    read.revision,
    read.merge_state,
    inventoryId,
    inventoryId,
    read.id,
    changedAt,
  ]);
  return found ? Number(found.revision) : null;
}
