import { PostgresAdapter } from 'kysely';
import type { Executor } from '../db/executor.js';
import type { ChangeEntity, ItemsTable, SettingsTable } from '../db/types.js';
import { chunks } from './inventory.named.repository.js';

/**
 * Reads the inventory row; on PostgreSQL also locks it until the transaction ends, so writers to
 * one inventory take turns (SQLite transactions are serialized anyway).
 */
export function lockInventory(db: Executor, id: string) {
  const query = db
    .selectFrom('inventories')
    .select(['id', 'name', 'revision', 'history_floor'])
    .where('id', '=', id);
  const isPg = db.getExecutor().adapter instanceof PostgresAdapter;
  return (isPg ? query.forUpdate() : query).executeTakeFirst();
}

export async function setInventoryName(db: Executor, id: string, name: string): Promise<void> {
  await db.updateTable('inventories').set({ name }).where('id', '=', id).execute();
}

// ---- items

export function listItems(db: Executor, inventoryId: string, sinceRevision = -1) {
  return db
    .selectFrom('items')
    .selectAll()
    .where('inventory_id', '=', inventoryId)
    .where('revision', '>', sinceRevision)
    .orderBy('id')
    .execute();
}

export function findItem(db: Executor, inventoryId: string, id: string) {
  return db
    .selectFrom('items')
    .selectAll()
    .where('inventory_id', '=', inventoryId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function upsertItem(db: Executor, row: ItemsTable): Promise<void> {
  const { inventory_id: _inventory, id: _id, ...fields } = row;
  await db
    .insertInto('items')
    .values(row)
    .onConflict((oc) => oc.columns(['inventory_id', 'id']).doUpdateSet(fields))
    .execute();
}

export async function insertItems(db: Executor, rows: ItemsTable[]): Promise<void> {
  for (const part of chunks(rows)) await db.insertInto('items').values(part).execute();
}

export async function deleteItems(db: Executor, inventoryId: string, ids: string[]) {
  let deleted = 0;
  for (const part of chunks(ids)) {
    const result = await db
      .deleteFrom('items')
      .where('inventory_id', '=', inventoryId)
      .where('id', 'in', part)
      .executeTakeFirst();
    deleted += Number(result.numDeletedRows);
  }
  return deleted;
}

// ---- categories and locations: inventory.named.repository.ts

export * from './inventory.named.repository.js';

// ---- settings

export function listSettings(db: Executor, inventoryId: string, since = -1) {
  return db
    .selectFrom('settings')
    .selectAll()
    .where('inventory_id', '=', inventoryId)
    .where('revision', '>', since)
    .orderBy('key')
    .execute();
}

export async function upsertSettings(db: Executor, rows: SettingsTable[]): Promise<void> {
  for (const part of chunks(rows)) {
    await db
      .insertInto('settings')
      .values(part)
      .onConflict((oc) =>
        oc.columns(['inventory_id', 'key']).doUpdateSet((eb) => ({
          value: eb.ref('excluded.value'),
          revision: eb.ref('excluded.revision'),
        })),
      )
      .execute();
  }
}

export async function deleteSettings(db: Executor, inventoryId: string, keys: string[]) {
  let deleted = 0;
  for (const part of chunks(keys)) {
    const result = await db
      .deleteFrom('settings')
      .where('inventory_id', '=', inventoryId)
      .where('key', 'in', part)
      .executeTakeFirst();
    deleted += Number(result.numDeletedRows);
  }
  return deleted;
}

// ---- change log

/** Ids of the entities deleted after revision `since` (they may have been re-created since). */
export async function tombstonesSince(
  db: Executor,
  inventoryId: string,
  entity: ChangeEntity,
  since: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('change_log')
    .select('entity_id')
    .distinct()
    .where('inventory_id', '=', inventoryId)
    .where('entity', '=', entity)
    .where('op', '=', 'delete')
    .where('revision', '>', since)
    .execute();
  return rows.map((r) => r.entity_id);
}

/**
 * Forgets change-log rows older than `cutoff` and raises each affected inventory's history floor
 * to the newest revision forgotten: deltas from an older revision are no longer complete.
 */
export async function pruneHistory(db: Executor, cutoff: number): Promise<number> {
  await db
    .updateTable('inventories')
    .set((eb) => ({
      history_floor: eb
        .selectFrom('change_log')
        .select((sub) => sub.fn.max('revision').as('floor'))
        .whereRef('change_log.inventory_id', '=', 'inventories.id')
        .where('change_log.changed_at', '<', cutoff),
    }))
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('change_log')
          .select('change_log.id')
          .whereRef('change_log.inventory_id', '=', 'inventories.id')
          .where('change_log.changed_at', '<', cutoff)
          .where('change_log.revision', '>', eb.ref('inventories.history_floor')),
      ),
    )
    .execute();
  const result = await db
    .deleteFrom('change_log')
    .where('changed_at', '<', cutoff)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Reads the inventory row without locking it. */
export function findInventory(db: Executor, id: string) {
  return db
    .selectFrom('inventories')
    .select(['id', 'name', 'revision', 'history_floor'])
    .where('id', '=', id)
    .executeTakeFirst();
}
