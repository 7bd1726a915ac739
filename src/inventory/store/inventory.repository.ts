import { deleteOlderThan } from '#src/db/rows.js';
import type { Kysely } from 'kysely';
import { isPostgres, type Executor } from '#src/db/executor.js';
import { Prepared } from '#src/db/prepared.js';
import type { ChangeEntity, DB, InventoriesTable } from '#src/db/types.js';

/**
 * The inventory's own row (name, lock, history floor), the reads and pruning of its change log,
 * and the per-inventory counts of the admin statistics (the revision and the change log are
 * written by revision.repository.ts only). Creating, listing, locking and deleting
 * inventory rows belong to the households feature (src/households/households.repository.ts);
 * the sub-resources (items/, named/, settings/) keep their tables' queries next to them.
 */

/** Rows per multi-row statement: stays under SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 500;

export function chunks<T>(list: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += CHUNK) out.push(list.slice(i, i + CHUNK));
  return out;
}

/** Reads consistently: one snapshot on PostgreSQL (SQLite transactions are serialized anyway). */
export function readConsistently<T>(db: Kysely<DB>, work: (trx: Executor) => Promise<T>) {
  return db.transaction().setIsolationLevel('repeatable read').execute(work);
}

/** Reads the inventory row without locking it. */
export function findInventory(db: Executor, id: string) {
  return lockSelect.first(db, [id]);
}

/**
 * Reads the inventory row; on PostgreSQL also locks it until the transaction ends, so writers to
 * one inventory take turns (SQLite transactions are serialized anyway).
 */
export function lockInventory(db: Executor, id: string) {
  return (isPostgres(db) ? lockForUpdate : lockSelect).first(db, [id]);
}

type InventoryRow = Pick<InventoriesTable, 'id' | 'name' | 'revision' | 'history_floor'>;
const inventoryColumns = 'select "id", "name", "revision", "history_floor" from "inventories"';
const lockSelect = new Prepared<InventoryRow>(`${inventoryColumns} where "id" = ?`);
const lockForUpdate = new Prepared<InventoryRow>(`${inventoryColumns} where "id" = ? for update`);

export async function setInventoryName(db: Executor, id: string, name: string): Promise<void> {
  await db.updateTable('inventories').set({ name }).where('id', '=', id).execute();
}

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
 * Every entity deleted at a revision up to `revision` (some were re-created since), with its kind:
 * the deletions of a full delta at that revision (sync/full-delta.ts). Rows up to a revision never
 * change (only pruning removes them, which raises the history floor), so no transaction is needed.
 */
export async function deletionsUpTo(
  db: Executor,
  inventoryId: string,
  revision: number,
): Promise<{ entity: ChangeEntity; entity_id: string }[]> {
  return db
    .selectFrom('change_log')
    .select(['entity', 'entity_id'])
    .distinct()
    .where('inventory_id', '=', inventoryId)
    .where('op', '=', 'delete')
    .where('revision', '<=', revision)
    .execute();
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
  return deleteOlderThan(db, 'change_log', 'changed_at', cutoff);
}

/** Per inventory: how many rows the table holds (admin statistics). */
export async function countPerInventory(
  db: Executor,
  table: 'items' | 'categories' | 'locations',
): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom(table)
    .select(['inventory_id', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('inventory_id')
    .execute();
  return new Map(rows.map((r) => [r.inventory_id, Number(r.n)]));
}

/** Per inventory: change-log rows since `since` and the newest change time. */
export async function activityPerInventory(
  db: Executor,
  since: number,
): Promise<Map<string, { recent: number; lastUpdated: number | null }>> {
  const rows = await db
    .selectFrom('change_log')
    .select((eb) => [
      'inventory_id',
      eb.fn
        .sum<number>(eb.case().when('changed_at', '>=', since).then(1).else(0).end())
        .as('recent'),
      eb.fn.max('changed_at').as('last'),
    ])
    .groupBy('inventory_id')
    .execute();
  return new Map(
    rows.map((r) => [
      r.inventory_id,
      { recent: Number(r.recent ?? 0), lastUpdated: r.last === null ? null : Number(r.last) },
    ]),
  );
}
