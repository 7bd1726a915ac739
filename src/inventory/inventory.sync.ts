import type { Kysely } from 'kysely';
import type { Executor } from '../db/executor.js';
import type { DB } from '../db/types.js';
import { AppError, badRequest } from '../http/errors.js';
import {
  inventoryOf,
  noInventory,
  toItem,
  toNamed,
  toSettings,
  type Caller,
  type InventoryDeps,
} from './inventory.core.js';
import * as repo from './inventory.repository.js';
import type { Changes, Snapshot } from './inventory.schemas.js';

/** Change-log rows (and so tombstones) are kept this long; older `since` values need a full sync. */
export const HISTORY_MS = 90 * 24 * 3600 * 1000;

/** Reads consistently: one snapshot on PostgreSQL (SQLite transactions are serialized anyway). */
export function readConsistently<T>(db: Kysely<DB>, work: (trx: Executor) => Promise<T>) {
  return db.transaction().setIsolationLevel('repeatable read').execute(work);
}

export async function loadSnapshot(trx: Executor, inventoryId: string): Promise<Snapshot> {
  const inventory = await repo.findInventory(trx, inventoryId);
  if (!inventory) throw noInventory();
  const [items, categories, locations, settings] = [
    await repo.listItems(trx, inventoryId),
    await repo.listNamed(trx, 'categories', inventoryId),
    await repo.listNamed(trx, 'locations', inventoryId),
    await repo.listSettings(trx, inventoryId),
  ];
  return {
    inventoryId,
    name: inventory.name,
    revision: Number(inventory.revision),
    items: items.map(toItem),
    categories: categories.map(toNamed),
    locations: locations.map(toNamed),
    settings: toSettings(settings),
  };
}

function fullSyncRequired(message: string): AppError {
  return new AppError(410, 'full_sync_required', message);
}

async function loadChanges(trx: Executor, inventoryId: string, since: number): Promise<Changes> {
  const inventory = await repo.findInventory(trx, inventoryId);
  if (!inventory) throw noInventory();
  const revision = Number(inventory.revision);
  if (since > revision) {
    throw badRequest(`query.since (${since}) is ahead of the inventory's revision (${revision})`);
  }
  if (since < Number(inventory.history_floor)) {
    throw fullSyncRequired(
      `Changes since revision ${since} are no longer kept; fetch GET /api/inventory instead`,
    );
  }
  const items = (await repo.listItems(trx, inventoryId, since)).map(toItem);
  const categories = (await repo.listNamed(trx, 'categories', inventoryId, since)).map(toNamed);
  const locations = (await repo.listNamed(trx, 'locations', inventoryId, since)).map(toNamed);
  const settings = toSettings(await repo.listSettings(trx, inventoryId, since));
  // an entity deleted and then re-created after `since` is sent as present, not as deleted
  const gone = async (entity: 'item' | 'category' | 'location' | 'setting', present: string[]) => {
    const alive = new Set(present);
    return (await repo.tombstonesSince(trx, inventoryId, entity, since))
      .filter((id) => !alive.has(id))
      .sort();
  };
  return {
    revision,
    name: inventory.name,
    items,
    deletedItemIds: await gone(
      'item',
      items.map((i) => i.id),
    ),
    categories,
    deletedCategoryIds: (
      await gone(
        'category',
        categories.map((c) => String(c.id)),
      )
    ).map(Number),
    locations,
    deletedLocationIds: (
      await gone(
        'location',
        locations.map((l) => String(l.id)),
      )
    ).map(Number),
    settings,
    deletedSettingKeys: await gone('setting', Object.keys(settings)),
  };
}

export function createSyncService(deps: InventoryDeps) {
  const { db, clock } = deps;
  return {
    snapshot(caller: Caller): Promise<Snapshot> {
      const inventoryId = inventoryOf(caller);
      return readConsistently(db, (trx) => loadSnapshot(trx, inventoryId));
    },

    /**
     * Everything changed after revision `since`. `expectedInventoryId` (optional) guards against
     * applying another inventory's deltas after the user was moved: a mismatch is 410.
     */
    changes(caller: Caller, since: number, expectedInventoryId?: string): Promise<Changes> {
      const inventoryId = inventoryOf(caller);
      if (expectedInventoryId !== undefined && expectedInventoryId !== inventoryId) {
        throw fullSyncRequired('You now belong to another inventory; fetch GET /api/inventory');
      }
      return readConsistently(db, (trx) => loadChanges(trx, inventoryId, since));
    },

    /** Forgets history older than 90 days; returns the number of change-log rows removed. */
    async pruneHistory(): Promise<number> {
      const cutoff = clock() - HISTORY_MS;
      return db.transaction().execute((trx) => repo.pruneHistory(trx, cutoff));
    },
  };
}

export type SyncService = ReturnType<typeof createSyncService>;
