import type { Kysely } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { ChangeEntity, DB } from '../../db/types.js';
import { AppError, badRequest } from '../../http/errors.js';
import { inventoryOf, noInventory, type Caller } from '../inventory.caller.js';
import { toItem, toNamed, toSettings } from '../inventory.mapper.js';
import { findInventory, readConsistently, tombstonesSince } from '../inventory.repository.js';
import { listItems } from '../items/items.repository.js';
import { listNamed } from '../named/named.repository.js';
import { listSettings } from '../settings/settings.repository.js';
import type { Named } from '../inventory.schemas.js';
import type { Changes, Snapshot } from './sync.schemas.js';

/** The whole inventory as GET /api/inventory answers it; also what PUT /api/inventory returns. */
export async function loadSnapshot(trx: Executor, inventoryId: string): Promise<Snapshot> {
  const inventory = await findInventory(trx, inventoryId);
  if (!inventory) throw noInventory();
  const [items, categories, locations, settings] = [
    await listItems(trx, inventoryId),
    await listNamed(trx, 'categories', inventoryId),
    await listNamed(trx, 'locations', inventoryId),
    await listSettings(trx, inventoryId),
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
  const inventory = await findInventory(trx, inventoryId);
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
  const items = (await listItems(trx, inventoryId, since)).map(toItem);
  const categories = (await listNamed(trx, 'categories', inventoryId, since)).map(toNamed);
  const locations = (await listNamed(trx, 'locations', inventoryId, since)).map(toNamed);
  const settings = toSettings(await listSettings(trx, inventoryId, since));
  // an entity deleted and then re-created after `since` is sent as present, not as deleted
  const gone = async (entity: ChangeEntity, present: { id: string | number }[]) => {
    const alive = new Set(present.map((p) => String(p.id)));
    return (await tombstonesSince(trx, inventoryId, entity, since))
      .filter((id) => !alive.has(id))
      .sort();
  };
  const goneNamed = async (entity: 'category' | 'location', present: Named[]) =>
    (await gone(entity, present)).map(Number);
  return {
    revision,
    name: inventory.name,
    items,
    deletedItemIds: await gone('item', items),
    categories,
    deletedCategoryIds: await goneNamed('category', categories),
    locations,
    deletedLocationIds: await goneNamed('location', locations),
    settings,
    deletedSettingKeys: await gone(
      'setting',
      Object.keys(settings).map((id) => ({ id })),
    ),
  };
}

/**
 * Full and delta sync: the whole inventory, or what changed after a revision, each read in one
 * consistent snapshot. Sync reads every table of the feature, through the table's repository.
 */
export function createSyncService(deps: { db: Kysely<DB> }) {
  const { db } = deps;
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
  };
}

export type SyncService = ReturnType<typeof createSyncService>;
