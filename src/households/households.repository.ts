import { isPostgres, type Executor } from '#src/db/executor.js';
import { rowExists } from '#src/db/rows.js';
import type { InventoriesTable } from '#src/db/types.js';

export async function insertInventory(db: Executor, row: InventoriesTable): Promise<void> {
  await db.insertInto('inventories').values(row).execute();
}

/**
 * Locks the inventory rows until the transaction ends (on PostgreSQL), in id order so two
 * membership changes cannot deadlock; a later membership change of the same inventory waits and
 * then sees this one's members. Returns the ids that exist.
 */
export async function lockInventories(db: Executor, ids: (string | null)[]): Promise<Set<string>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return new Set();
  const query = db.selectFrom('inventories').select('id').where('id', 'in', wanted).orderBy('id');
  const rows = await (isPostgres(db) ? query.forUpdate() : query).execute();
  return new Set(rows.map((row) => row.id));
}

export function listInventories(db: Executor): Promise<InventoriesTable[]> {
  return db.selectFrom('inventories').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function listInventoryIds(db: Executor): Promise<string[]> {
  const rows = await db.selectFrom('inventories').select('id').orderBy('id').execute();
  return rows.map((r) => r.id);
}

export async function findInventoryName(db: Executor, id: string): Promise<string | null> {
  const row = await db
    .selectFrom('inventories')
    .select('name')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.name ?? null;
}

export function inventoryExists(db: Executor, id: string): Promise<boolean> {
  return rowExists(db, 'inventories', { id });
}

// Membership is the `users.inventory_id` column: the users feature writes it (after lockForMove),
// and these reads of it stay with the inventories they describe.

export function listMembers(db: Executor) {
  return db
    .selectFrom('users')
    .select(['id', 'username', 'is_admin', 'inventory_id'])
    .where('inventory_id', 'is not', null)
    .orderBy('username_key')
    .execute();
}

export function listMemberIds(db: Executor, inventoryId: string): Promise<string[]> {
  return db
    .selectFrom('users')
    .select('id')
    .where('inventory_id', '=', inventoryId)
    .execute()
    .then((rows) => rows.map((r) => r.id));
}

/**
 * Removes the inventory (and by cascade its contents) when no user belongs to it any more. The
 * member check is a subquery of the delete on purpose: one statement, not a read then a delete.
 */
export async function deleteInventoryIfOrphan(db: Executor, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('inventories')
    .where('id', '=', id)
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('users').select('id').where('inventory_id', '=', id))),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function membersPerInventory(db: Executor): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('users')
    .select(['inventory_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('inventory_id', 'is not', null)
    .groupBy('inventory_id')
    .execute();
  return new Map(rows.map((r) => [r.inventory_id as string, Number(r.n)]));
}
