import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Kysely } from 'kysely';
import { timeSlicer } from '#src/db/prepared.js';
import type { Executor } from '#src/db/executor.js';
import type { ChangeEntity, DB } from '#src/db/types.js';
import { AppError, badRequest } from '#src/http/errors.js';
import { inventoryOf, noInventory, type Caller } from '#src/inventory/store/inventory.caller.js';
import { mapPaced, toItem, toNamed, toSettings } from '#src/inventory/store/inventory.mapper.js';
import {
  findInventory,
  readConsistently,
  tombstonesSince,
} from '#src/inventory/store/inventory.repository.js';
import { listItems } from '#src/inventory/store/items.repository.js';
import { listNamed } from '#src/inventory/store/named.repository.js';
import { listSettings } from '#src/inventory/store/settings.repository.js';
import type { Named } from '#src/inventory/inventory.schemas.js';
import { serializeChanges, serializeSnapshot } from './serialize.js';
import { fullDeltaJson, liveIdsOf, pullJson } from './full-delta.js';
import {
  etagOf,
  type Encoded,
  type FullDelta,
  type SnapshotBytes,
  type SnapshotCache,
} from '#src/inventory/store/snapshot.cache.js';
import type { Changes, Snapshot } from './sync.schemas.js';
import { shoppingChangedSince } from '#src/inventory/store/shopping.repository.js';

const gzipBytes = promisify(zlib.gzip);

export type CachedSnapshot =
  { notModified: true; etag: string } | { notModified: false; etag: string; bytes: SnapshotBytes };

/** If-None-Match against one strong tag: a list of tags, weak ones compared weakly, or `*`. */
function etagMatches(header: string, etag: string): boolean {
  return header
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === etag || t === '*');
}

/** The whole inventory as GET /api/inventory answers it; also what PUT /api/inventory returns. */
export async function loadSnapshot(
  trx: Executor,
  inventoryId: string,
  pace: () => Promise<void> = timeSlicer(),
): Promise<Snapshot> {
  const inventory = await findInventory(trx, inventoryId);
  if (!inventory) throw noInventory();
  const [items, categories, locations, settings] = [
    await listItems(trx, inventoryId, -1, pace),
    await listNamed(trx, 'categories', inventoryId),
    await listNamed(trx, 'locations', inventoryId),
    await listSettings(trx, inventoryId),
  ];
  return {
    inventoryId,
    name: inventory.name,
    revision: Number(inventory.revision),
    items: await mapPaced(items, toItem, pace),
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
  const pace = timeSlicer();
  const items = await mapPaced(await listItems(trx, inventoryId, since, pace), toItem, pace);
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
    shoppingListChanged: since === 0 || (await shoppingChangedSince(trx, inventoryId, since)),
  };
}

/**
 * Full and delta sync: the whole inventory, or what changed after a revision, each read in one
 * consistent snapshot. Sync reads every table of the feature, through the table's repository.
 */
export function createSyncService(deps: { db: Kysely<DB>; cache: SnapshotCache }) {
  const { db, cache } = deps;
  /** Loads in flight per inventory and revision: concurrent misses share one load. */
  const loading = new Map<string, Promise<SnapshotBytes>>();

  async function load(inventoryId: string): Promise<SnapshotBytes> {
    const pace = timeSlicer();
    const snapshot = await readConsistently(db, (trx) => loadSnapshot(trx, inventoryId, pace));
    // the snapshot may be newer than the revision just read (a write in between): kept under its own
    const json = await serializeSnapshot(snapshot, pace);
    return cache.store(inventoryId, snapshot.revision, json, liveIdsOf(snapshot));
  }

  /** The cached snapshot at `revision` (or newer), loaded once for concurrent misses. */
  async function entryAt(inventoryId: string, revision: number): Promise<SnapshotBytes> {
    const hit = cache.get(inventoryId, revision);
    if (hit) return hit;
    const key = `${revision}-${inventoryId}`;
    let pending = loading.get(key);
    if (!pending) {
      pending = load(inventoryId).finally(() => loading.delete(key));
      loading.set(key, pending);
    }
    return pending;
  }

  /** A full delta read and serialized as any delta (when the snapshot's bytes cannot be used). */
  async function readFullDelta(inventoryId: string): Promise<Buffer> {
    const changes = await readConsistently(db, (trx) => loadChanges(trx, inventoryId, 0));
    return serializeChanges(changes, timeSlicer());
  }

  return {
    /**
     * GET /api/inventory as bytes: `notModified` when `ifNoneMatch` names the current revision,
     * else the serialized snapshot, from the cache when it holds the current revision.
     */
    async snapshotBytes(caller: Caller, ifNoneMatch?: string): Promise<CachedSnapshot> {
      const inventoryId = inventoryOf(caller);
      const inventory = await findInventory(db, inventoryId);
      if (!inventory) throw noInventory();
      const revision = Number(inventory.revision);
      const etag = etagOf(inventoryId, revision);
      if (ifNoneMatch !== undefined && etagMatches(ifNoneMatch, etag)) {
        return { notModified: true, etag };
      }
      const bytes = await entryAt(inventoryId, revision);
      return { notModified: false, etag: bytes.etag, bytes };
    },

    /**
     * Everything since revision 0 (GET /changes?since=0, POST /sync {since: 0}), made from the
     * cached snapshot (sync/full-delta.ts): it costs what a snapshot costs. 410 as `changes`.
     */
    async fullDelta(caller: Caller, expectedInventoryId?: string): Promise<FullDelta> {
      const inventoryId = inventoryOf(caller);
      if (expectedInventoryId !== undefined && expectedInventoryId !== inventoryId) {
        throw fullSyncRequired('You now belong to another inventory; fetch GET /api/inventory');
      }
      const inventory = await findInventory(db, inventoryId);
      if (!inventory) throw noInventory();
      if (Number(inventory.history_floor) > 0) {
        throw fullSyncRequired(
          'Changes since revision 0 are no longer kept; fetch GET /api/inventory instead',
        );
      }
      const entry = await entryAt(inventoryId, Number(inventory.revision));
      const delta = await entry.derived(
        'delta',
        async () => (await fullDeltaJson(db, entry)) ?? readFullDelta(inventoryId),
      );
      const pull = async (resultsJson: string): Promise<Encoded> => {
        const make = async () => pullJson(resultsJson, entry.revision, delta.json);
        if (resultsJson === '[]') return entry.derived('pull', make);
        let compressed: Promise<Buffer> | null = null;
        const json = await make();
        return { json, gzip: () => (compressed ??= gzipBytes(json)) };
      };
      return { revision: entry.revision, delta, pull };
    },

    /** Serializes a snapshot just written (PUT's answer) and keeps it for the next reads. */
    async remember(snapshot: Snapshot): Promise<SnapshotBytes> {
      const json = await serializeSnapshot(snapshot, timeSlicer());
      return cache.store(snapshot.inventoryId, snapshot.revision, json, liveIdsOf(snapshot));
    },

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

    /** `changes` serialized, a slice of items at a time (a `since` of 0 is every item). */
    async changesBytes(caller: Caller, since: number, expectedInventoryId?: string) {
      return serializeChanges(await this.changes(caller, since, expectedInventoryId), timeSlicer());
    },
  };
}

export type SyncService = ReturnType<typeof createSyncService>;
