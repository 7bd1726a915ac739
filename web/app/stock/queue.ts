import type { components, paths } from '#web/shared/api/openapi.ts';

/**
 * The app's side of `POST /api/inventory/sync` (docs/api.md "Offline operations"), without any
 * browser API so that it can be tested beside the server's merge: the local copy is the server's
 * last answer (`Base`) with the queue of edits not yet acknowledged laid over it.
 */
type Schemas = components['schemas'];
export type Item = Schemas['InventoryItem'];
export type Named = Schemas['InventoryNamed'];
export type Snapshot = Schemas['InventorySnapshot'];
export type Changes = Schemas['InventoryChanges'];
type SyncPath = paths['/api/inventory/sync']['post'];
export type SyncBody = NonNullable<SyncPath['requestBody']>['content']['application/json'];
export type SyncAnswer = SyncPath['responses'][200]['content']['application/json'];
export type OpResult = SyncAnswer['results'][number];
export type Operation = 'create' | 'update' | 'delete' | 'adjust';

/** The server's state as last synced, revision included. */
export interface Base {
  inventoryId: string;
  name: string;
  revision: number;
  items: Record<string, Item>;
  categories: Named[];
  locations: Named[];
  settings: Record<string, string>;
}

/** One queued edit, exactly the Android app's queue entry; `seq` orders the queue locally. */
export interface PendingOp {
  seq?: number;
  id: string;
  itemId: string;
  operation: Operation;
  /** the JSON text of the payload, as the Android app stores it */
  payload: string;
  createdAt: number;
}

/** What the server did not take of an edit, shown on the item until dismissed. */
export interface ItemNote {
  itemId: string;
  itemName: string;
  status: 'merged' | 'rejected';
  kept?: string[];
  code?: string;
  message?: string;
}

/** The fields an `update` may carry (all but id and the server's revision). */
export type ItemFields = Partial<Omit<Item, 'id' | 'revision'>>;

export function baseFromSnapshot(snapshot: Snapshot): Base {
  return {
    inventoryId: snapshot.inventoryId,
    name: snapshot.name,
    revision: snapshot.revision,
    items: Object.fromEntries(snapshot.items.map((item) => [item.id, item])),
    categories: snapshot.categories,
    locations: snapshot.locations,
    settings: snapshot.settings,
  };
}

function upsertNamed(list: Named[], changed: Named[], deleted: number[]): Named[] {
  const byId = new Map(list.map((n) => [n.id, n]));
  for (const id of deleted) byId.delete(id);
  for (const n of changed) byId.set(n.id, n);
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

/** The base after the changes since its revision (GET /api/inventory/changes or a sync's). */
export function applyChanges(base: Base, changes: Changes): Base {
  const items = { ...base.items };
  for (const id of changes.deletedItemIds) delete items[id];
  for (const item of changes.items) items[item.id] = item;
  const settings = { ...base.settings, ...changes.settings };
  for (const key of changes.deletedSettingKeys) delete settings[key];
  return {
    ...base,
    name: changes.name,
    revision: changes.revision,
    items,
    categories: upsertNamed(base.categories, changes.categories, changes.deletedCategoryIds),
    locations: upsertNamed(base.locations, changes.locations, changes.deletedLocationIds),
    settings,
  };
}

function parsePayload(op: PendingOp): Record<string, unknown> {
  try {
    const value = JSON.parse(op.payload) as unknown;
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** One op applied to the local items, as the server would apply it without competition. */
function applyOp(items: Record<string, Item>, op: PendingOp): void {
  const payload = parsePayload(op);
  const current = items[op.itemId];
  switch (op.operation) {
    case 'create':
      items[op.itemId] = { ...(payload as unknown as Item), id: op.itemId, revision: 0 };
      return;
    case 'update':
      if (current) items[op.itemId] = { ...current, ...(payload as ItemFields), id: op.itemId };
      return;
    case 'adjust':
      if (current && typeof payload.delta === 'number') {
        items[op.itemId] = { ...current, quantity: current.quantity + payload.delta };
      }
      return;
    case 'delete':
      delete items[op.itemId];
      return;
  }
}

/** The items as this device shows them: the base with every queued op laid over it. */
export function viewOf(base: Base, queue: readonly PendingOp[]): Record<string, Item> {
  const items = { ...base.items };
  for (const op of queue) applyOp(items, op);
  return items;
}

/** A queue entry for an edit made now. */
export function makeOp(
  operation: Operation,
  itemId: string,
  payload: unknown,
  now: number,
  newId: () => string,
): PendingOp {
  return { id: newId(), itemId, operation, payload: JSON.stringify(payload ?? {}), createdAt: now };
}

/** The note to keep for a result the server did not simply apply (null: nothing to show). */
export function noteFor(op: PendingOp, result: OpResult, name: string): ItemNote | null {
  const first = result.status === 'duplicate' && result.original ? result.original : result;
  if (first.status === 'merged' && first.kept?.length) {
    return { itemId: op.itemId, itemName: name, status: 'merged', kept: first.kept };
  }
  if (first.status === 'rejected') {
    return {
      itemId: op.itemId,
      itemName: name,
      status: 'rejected',
      code: first.code,
      message: first.message,
    };
  }
  return null;
}
