import type { Executor } from '#src/db/executor.js';
import { deletionsUpTo } from '#src/inventory/store/inventory.repository.js';
import type { LiveIds, SnapshotBytes } from '#src/inventory/store/snapshot.cache.js';
import type { Snapshot } from './sync.schemas.js';

/**
 * The full delta (`GET /api/inventory/changes?since=0`, `POST /api/inventory/sync {since: 0}`)
 * made from the cached snapshot rather than read again: every item, category, location and
 * setting of the snapshot, plus what was deleted up to its revision and is not there now. So a
 * full delta costs what the cached snapshot costs: a first one shares the snapshot's load, the
 * others are served from bytes kept with it (docs/performance.md, "Full delta").
 */

/** The ids a snapshot holds, per entity. */
export function liveIdsOf(snapshot: Snapshot): LiveIds {
  return {
    item: new Set(snapshot.items.map((i) => i.id)),
    category: new Set(snapshot.categories.map((c) => String(c.id))),
    location: new Set(snapshot.locations.map((l) => String(l.id))),
    setting: new Set(Object.keys(snapshot.settings)),
  };
}

/** The deleted ids of a full delta at the entry's revision, as loadChanges lists them. */
async function deletions(db: Executor, entry: SnapshotBytes) {
  const gone: Record<keyof LiveIds, string[]> = {
    item: [],
    category: [],
    location: [],
    setting: [],
  };
  for (const row of await deletionsUpTo(db, entry.inventoryId, entry.revision)) {
    if (row.entity === 'inventory' || row.entity === 'shopping') continue;
    if (!entry.live[row.entity].has(row.entity_id)) gone[row.entity].push(row.entity_id);
  }
  for (const ids of Object.values(gone)) ids.sort();
  return gone;
}

/**
 * The full delta's JSON from the snapshot's: the snapshot is `{"inventoryId":…,"name":…,
 * "revision":…,"items":…,"categories":…,"locations":…,"settings":…}` (fast-json-stringify keeps
 * the schema's order), so the delta is the same bytes without `inventoryId`, with the deletions
 * appended. null when the bytes do not start as expected (then the caller reads the delta).
 */
export async function fullDeltaJson(db: Executor, entry: SnapshotBytes): Promise<Buffer | null> {
  const prefix = Buffer.from(`{"inventoryId":${JSON.stringify(entry.inventoryId)},`);
  const { json } = entry;
  if (!json.subarray(0, prefix.length).equals(prefix) || json[json.length - 1] !== 0x7d) {
    return null;
  }
  const gone = await deletions(db, entry);
  const tail =
    `,"deletedItemIds":${JSON.stringify(gone.item)}` +
    `,"deletedCategoryIds":${JSON.stringify(gone.category.map(Number))}` +
    `,"deletedLocationIds":${JSON.stringify(gone.location.map(Number))}` +
    `,"deletedSettingKeys":${JSON.stringify(gone.setting)}` +
    // since 0 the client has no list yet
    `,"shoppingListChanged":true}`;
  return Buffer.concat([
    Buffer.from('{'),
    json.subarray(prefix.length, json.length - 1),
    Buffer.from(tail),
  ]);
}

/** `{"results": <results JSON>, "revision": R, "changes": <full delta>}`: POST /sync's answer. */
export function pullJson(resultsJson: string, revision: number, delta: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`{"results":${resultsJson},"revision":${revision},"changes":`),
    delta,
    Buffer.from('}'),
  ]);
}
