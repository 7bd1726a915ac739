import type { Executor } from '#src/db/executor.js';
import { Prepared, bulkInsert } from '#src/db/prepared.js';
import type { SyncStatements } from '#src/db/statement-cache.js';
import type { ChangeEntity, ChangeOp, ItemsStateTable } from '#src/db/types.js';
import type { Author } from './journal.author.js';
import { insertJournalNow } from './journal.repository.js';
import { ITEM_FIELD_TYPES, updateItemNow } from './items.repository.js';

/**
 * The inventory's revision and change log: every statement that moves the one or writes the
 * other, for the one caller that does, inventory.mutate.ts — the locking write's bump and change
 * rows, and PostgreSQL's one-statement item write (which does both with the item).
 */

/** Bumps the inventory's revision and returns the new one. Call inside the mutating transaction. */
export async function bumpRevision(db: Executor, inventoryId: string): Promise<number> {
  const row = await bump.first(db, [inventoryId]);
  if (!row) throw new Error(`inventory ${inventoryId} vanished during a write`);
  return Number(row.revision);
}

const bump = new Prepared<{ revision: number }>(
  'update "inventories" set "revision" = "revision" + 1 where "id" = ? returning "revision"',
);

/** One changed entity of a write: becomes one change-log row. */
export interface ChangeRecord {
  entity: ChangeEntity;
  entityId: string;
  op: ChangeOp;
}

const insertChangeRows = bulkInsert(
  'change_log',
  ['inventory_id', 'revision', 'entity', 'entity_id', 'op', 'changed_at'],
  ['text', 'bigint', 'text', 'text', 'text', 'bigint'],
);

export async function insertChanges(
  db: Executor,
  inventoryId: string,
  revision: number,
  changedAt: number,
  changes: ChangeRecord[],
  pace?: () => Promise<void>,
): Promise<void> {
  const rows = changes.map((c) => [inventoryId, revision, c.entity, c.entityId, c.op, changedAt]);
  await insertChangeRows(db, rows, pace);
}

const SET = ITEM_FIELD_TYPES;
const SET_COLUMNS = Object.keys(SET) as (keyof typeof SET)[];

/** One write of a batch: the item as read (or remembered) and the row to store over it. */
export interface CasWrite {
  read: ItemsStateTable;
  row: ItemsStateTable;
  /** the write's time, for its change-log row (and journal row) */
  changedAt: number;
  /** the journal row's id and author when the write changes the quantity (kind `set`), else null */
  journal?: { id: string; author: Author } | null;
}

/**
 * SQLite, inside a synchronous write (Database.writeSync) that read the item in the same
 * transaction: what the locking write does for one item, without its lock or savepoint — the
 * revision bumped, the item written at it, its change-log row and, when it carries one, its
 * journal row (as the item writer notes it: kind `set`, at the write's time). Returns the new
 * revision.
 */
export function writeItemNow(sql: SyncStatements, inventoryId: string, write: CasWrite): number {
  const [bumped] = bump.allNow(sql, [inventoryId]);
  if (!bumped) throw new Error(`inventory ${inventoryId} vanished during a write`);
  const revision = Number(bumped.revision);
  const { read, row, changedAt, journal } = write;
  updateItemNow(sql, { ...row, revision });
  insertChangeRows.now(sql, [inventoryId, revision, 'item', row.id, 'upsert', changedAt]);
  if (journal) {
    const quantity = Number(row.quantity);
    insertJournalNow(sql, {
      id: journal.id,
      inventory_id: inventoryId,
      at: changedAt,
      item_id: row.id,
      item_name: row.name,
      user_id: journal.author.userId,
      username: journal.author.username,
      device_id: journal.author.deviceId,
      op_id: null,
      source: journal.author.source,
      kind: 'set',
      delta: quantity - Number(read.quantity),
      quantity_after: quantity,
    });
  }
  return revision;
}

/**
 * PostgreSQL only: one statement (autocommit, so atomic on its own) that writes several items of
 * one or more inventories, each only if it is still exactly as read (every column: the revision
 * alone would do while revisions only grow, but a remembered row, items.cache.ts, must not be
 * taken for another one after a restore moved them back). It locks the inventories' rows first, in
 * id order (`inv`), then the items still as read (`hit`, FOR UPDATE); those get the next revisions
 * of their inventory in the order given, one each, as if written one after the other; each
 * inventory's revision is bumped by their number and each write gets its change-log row, and its
 * journal row when it carries one (`j_id`): at its time, or at the inventory's newest journal time
 * when that is later, so the journal's time order is the order of the writes (two PATCHes read at
 * t1 < t2 may commit t2 first). Several inventories in one statement share one commit, one WAL
 * flush (items.cas.batch.ts).
 *
 * Why this is safe: every inventory's row is locked before any item (`(select count(*) from
 * "inv") > 0` is a one-time filter of `hit`, evaluated before its scan, and counting takes every
 * lock), as the locking transaction locks its inventory first, and inventories are locked in id
 * order as `lockInventories` does, so no two writers ever wait on each other in opposite orders.
 * A statement that waited for a lock reads the revision its predecessor committed (FOR UPDATE in
 * READ COMMITTED re-reads the newest row), and an item changed meanwhile is re-checked on its
 * newest version, so it no longer matches. The locks are held until the commit: each change log
 * stays gapless and in commit order.
 *
 * `hit` looks each item up by its key: a lateral subquery, one search of the primary key per
 * write (the revision is compared with the other columns, where no index can take it). As a
 * join, the prepared statement's generic plan (json_to_recordset taken for 100 rows, an inventory
 * for a few items) read every item of the inventory into a hash, each time: auto_explain showed
 * 0.29 of the statement's 0.53 ms there with 100 items, and it grows with the inventory.
 */
const casBatch = new Prepared<{ ord: number; revision: number | string }>(
  `with "t" as (
    select * from json_to_recordset(?::json) as "t"("ord" integer, "inventory_id" text, "id" text,
      "read_revision" bigint, "changed_at" bigint, "j_id" text, "j_user_id" text,
      "j_username" text, "j_device_id" text, "j_source" text,
      ${SET_COLUMNS.map((c) => `"${c}" ${SET[c]}, "read_${c}" ${SET[c]}`).join(', ')})
  ),
  "inv" as (
    select "id", "revision" from "inventories"
    where "id" = any(array(select distinct "inventory_id" from "t")) order by "id" for update
  ),
  "hit" as (
    select "t"."ord", "t"."inventory_id", "t"."id", "t"."changed_at", "locked"."ctid"
    from "t" cross join lateral (
      select "items"."ctid" from "items"
      where "items"."inventory_id" = "t"."inventory_id" and "items"."id" = "t"."id"
        and ("items"."revision", ${SET_COLUMNS.map((c) => `"items"."${c}"`).join(', ')})
          is not distinct from ("t"."read_revision", ${SET_COLUMNS.map((c) => `"t"."read_${c}"`).join(', ')})
      for update
    ) as "locked"
    where (select count(*) from "inv") > 0 and "t"."inventory_id" = any(array(select "id" from "inv"))
  ),
  "num" as (
    select "hit"."ord", "hit"."inventory_id", "hit"."id", "hit"."changed_at", "hit"."ctid",
      "inv"."revision" + row_number() over (partition by "hit"."inventory_id" order by "hit"."ord")
        as "revision"
    from "hit" join "inv" on "inv"."id" = "hit"."inventory_id"
  ),
  "item" as (
    update "items" set ${SET_COLUMNS.map((c) => `"${c}" = "t"."${c}"`).join(', ')},
      "revision" = "num"."revision"
    from "num" join "t" on "t"."ord" = "num"."ord"
    where "items"."ctid" = any(array(select "ctid" from "num")) and "items"."ctid" = "num"."ctid"
      and ("items"."inventory_id", "items"."id") is not distinct from ("num"."inventory_id", "num"."id")
    returning 1
  ),
  "bump" as (
    update "inventories"
    set "revision" = "revision" + (select count(*) from "num" where "num"."inventory_id" = "inventories"."id")
    where "id" = any(array(select distinct "inventory_id" from "num"))
  ),
  "log" as (
    insert into "change_log" ("inventory_id", "revision", "entity", "entity_id", "op", "changed_at")
    select "inventory_id", "revision", 'item', "id", 'upsert', "changed_at" from "num"
    order by "inventory_id", "revision"
  ),
  "journaled" as (
    insert into "journal" ("id", "inventory_id", "at", "item_id", "item_name", "user_id",
      "username", "device_id", "op_id", "source", "kind", "delta", "quantity_after")
    select "t"."j_id", "num"."inventory_id",
      greatest(
        max("t"."changed_at") over (partition by "num"."inventory_id" order by "num"."revision"),
        (select coalesce(max("j"."at"), 0) from "journal" as "j"
          where "j"."inventory_id" = "num"."inventory_id")),
      "t"."id", "t"."name", "t"."j_user_id", "t"."j_username",
      "t"."j_device_id", null, "t"."j_source", 'set', "t"."quantity" - "t"."read_quantity", "t"."quantity"
    from "num" join "t" on "t"."ord" = "num"."ord"
    where "t"."j_id" is not null order by "num"."inventory_id", "num"."revision"
  )
  select "ord", "revision" from "num"
  where 1 / ((select count(*) from "item") = (select count(*) from "num"))::int = 1`,
  { name: 'larder_items_cas_many' },
);

/** One inventory's writes in a statement of several inventories (casUpdateInventories). */
export interface InventoryWrites {
  inventoryId: string;
  writes: readonly CasWrite[];
}

/**
 * Writes each `row` over its stored item `read` (PostgreSQL; at most one write per item), for
 * each inventory given, in one statement: per inventory, the revision is bumped once per item
 * written and one item upsert is logged at its `changedAt` each. Returns, per inventory in the
 * order given, the new revision of each write, or null for one whose item (or inventory) was no
 * longer as read. The inventories are locked in id order.
 */
export async function casUpdateInventories(
  db: Executor,
  inventories: readonly InventoryWrites[],
): Promise<(number | null)[][]> {
  const input = inventories.flatMap(({ inventoryId, writes }) =>
    writes.map(({ read, row, changedAt, journal }) => {
      const record: Record<string, unknown> = {
        inventory_id: inventoryId,
        id: read.id,
        read_revision: Number(read.revision),
        changed_at: changedAt,
        j_id: journal?.id ?? null,
        j_user_id: journal?.author.userId ?? null,
        j_username: journal?.author.username ?? null,
        j_device_id: journal?.author.deviceId ?? null,
        j_source: journal?.author.source ?? null,
      };
      for (const c of SET_COLUMNS) {
        record[c] = row[c];
        record[`read_${c}`] = read[c];
      }
      return record;
    }),
  );
  input.forEach((record, ord) => (record.ord = ord));
  const rows = await casBatch.all(db, [JSON.stringify(input)]);
  const byOrd: (number | null)[] = input.map(() => null);
  for (const { ord, revision } of rows) byOrd[ord] = Number(revision);
  let next = 0;
  return inventories.map(({ writes }) => writes.map(() => byOrd[next++]!));
}

/** casUpdateInventories for one inventory: the new revision of each write, or null if stale. */
export async function casUpdateItems(
  db: Executor,
  inventoryId: string,
  writes: readonly CasWrite[],
): Promise<(number | null)[]> {
  return (await casUpdateInventories(db, [{ inventoryId, writes }]))[0]!;
}
