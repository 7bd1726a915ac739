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
 * one inventory, each only if it is still exactly as read (every column: the revision alone
 * would do while revisions only grow, but a remembered row, items.cache.ts, must not be taken for
 * another one after a restore moved them back). It locks the inventory's row first (`inv`), then
 * the items still as read (`hit`, FOR UPDATE); those get the next revisions in the order given,
 * one each, as if written one after the other; the inventory's revision is bumped by their
 * number and each gets its change-log row, and its journal row when it carries one (`j_id`):
 * at its time, or at the inventory's newest journal time when that is later, so the journal's
 * time order is the order of the writes (two PATCHes read at t1 < t2 may commit t2 first).
 *
 * Why this is safe: the inventory's row is locked before any item (`exists (select 1 from "inv")`
 * is a one-time filter of `hit`, evaluated before its scan), as the locking transaction does, so
 * no two writers of an inventory ever wait on each other in opposite orders. A statement that
 * waited for the lock reads the revision its predecessor committed (FOR UPDATE in READ COMMITTED
 * re-reads the newest row), and an item changed meanwhile is re-checked on its newest version, so
 * it no longer matches. The lock is held until the commit: the change log stays gapless and in
 * commit order.
 *
 * `hit` looks each item up by its key: a lateral subquery, one search of the primary key per
 * write (the revision is compared with the other columns, where no index can take it). As a
 * join, the prepared statement's generic plan (json_to_recordset taken for 100 rows, an inventory
 * for a few items) read every item of the inventory into a hash, each time: auto_explain showed
 * 0.29 of the statement's 0.53 ms there with 100 items, and it grows with the inventory.
 */
const casBatch = new Prepared<{ ord: number; revision: number | string }>(
  `with "inv" as (select "revision" from "inventories" where "id" = ? for update),
  "t" as (
    select * from json_to_recordset(?::json) as "t"("ord" integer, "id" text,
      "read_revision" bigint, "changed_at" bigint, "j_id" text, "j_user_id" text,
      "j_username" text, "j_device_id" text, "j_source" text,
      ${SET_COLUMNS.map((c) => `"${c}" ${SET[c]}, "read_${c}" ${SET[c]}`).join(', ')})
  ),
  "hit" as (
    select "t"."ord", "t"."id", "t"."changed_at", "locked"."ctid" from "t" cross join lateral (
      select "items"."ctid" from "items"
      where "items"."inventory_id" = ? and "items"."id" = "t"."id"
        and ("items"."revision", ${SET_COLUMNS.map((c) => `"items"."${c}"`).join(', ')})
          is not distinct from ("t"."read_revision", ${SET_COLUMNS.map((c) => `"t"."read_${c}"`).join(', ')})
      for update
    ) as "locked"
    where exists (select 1 from "inv")
  ),
  "num" as (
    select "ord", "id", "changed_at", "ctid",
      (select "revision" from "inv") + row_number() over (order by "ord") as "revision"
    from "hit"
  ),
  "item" as (
    update "items" set ${SET_COLUMNS.map((c) => `"${c}" = "t"."${c}"`).join(', ')},
      "revision" = "num"."revision"
    from "num" join "t" on "t"."ord" = "num"."ord"
    where "items"."ctid" = any(array(select "ctid" from "num")) and "items"."ctid" = "num"."ctid"
      and ("items"."inventory_id", "items"."id") is not distinct from (?, "num"."id")
    returning 1
  ),
  "bump" as (
    update "inventories" set "revision" = "revision" + (select count(*) from "num")
    where "id" = ? and exists (select 1 from "num")
  ),
  "log" as (
    insert into "change_log" ("inventory_id", "revision", "entity", "entity_id", "op", "changed_at")
    select ?, "revision", 'item', "id", 'upsert', "changed_at" from "num" order by "revision"
  ),
  "journaled" as (
    insert into "journal" ("id", "inventory_id", "at", "item_id", "item_name", "user_id",
      "username", "device_id", "op_id", "source", "kind", "delta", "quantity_after")
    select "t"."j_id", ?,
      greatest(max("t"."changed_at") over (order by "num"."revision"),
        (select coalesce(max("at"), 0) from "journal" where "inventory_id" = ?)),
      "t"."id", "t"."name", "t"."j_user_id", "t"."j_username",
      "t"."j_device_id", null, "t"."j_source", 'set', "t"."quantity" - "t"."read_quantity", "t"."quantity"
    from "num" join "t" on "t"."ord" = "num"."ord"
    where "t"."j_id" is not null order by "num"."revision"
  )
  select "ord", "revision" from "num"
  where 1 / ((select count(*) from "item") = (select count(*) from "num"))::int = 1`,
  { name: 'larder_items_cas' },
);

/**
 * Writes each `row` over its stored item `read` (PostgreSQL; every write of one inventory, at
 * most one per item), bumping the revision once per item written and logging one item upsert at
 * its `changedAt` each; returns the new revision of each write, in order, or null for one whose item
 * (or inventory) was no longer as read.
 */
export async function casUpdateItems(
  db: Executor,
  inventoryId: string,
  writes: readonly CasWrite[],
): Promise<(number | null)[]> {
  const input = writes.map(({ read, row, changedAt, journal }, ord) => {
    const record: Record<string, unknown> = {
      ord,
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
  });
  const rows = await casBatch.all(db, [
    inventoryId,
    JSON.stringify(input),
    inventoryId,
    inventoryId,
    inventoryId,
    inventoryId,
    inventoryId,
    inventoryId,
  ]);
  const revisions: (number | null)[] = writes.map(() => null);
  for (const { ord, revision } of rows) revisions[ord] = Number(revision);
  return revisions;
}
