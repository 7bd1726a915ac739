import type { Generated } from 'kysely';

/** An inventory and its content: items, categories, locations, settings, the change log. */

export interface InventoriesTable {
  id: string;
  name: string;
  revision: number;
  /** Deltas are complete only for `since >= history_floor`; older clients need a full sync. */
  history_floor: number;
  created_at: number;
}

export interface NamedEntityTable {
  inventory_id: string;
  id: number;
  name: string;
  name_key: string;
  revision: number;
  updated_at: number;
}

export interface ItemsTable {
  inventory_id: string;
  id: string;
  name: string;
  category_id: number;
  location_id: number;
  quantity: number;
  unit: string;
  unit_price: number;
  kcal_per_kg: number | null;
  expiry_date: string | null;
  notes: string;
  last_updated: number;
  revision: number;
}

/** An item row with its merge state (items.merge.ts): what the one item writer reads and writes. */
export interface ItemsStateTable extends ItemsTable {
  /** JSON of per-field times, quantity base and adjustments; '' = all at last_updated, no adjustments */
  merge_state: string;
}

/** A counted adjust of an item (items.adjusts.ts): its stamp, delta and the quantity after it. */
export interface ItemAdjustsTable {
  inventory_id: string;
  item_id: string;
  t: number;
  o: string;
  delta: number;
  total: number;
}

export interface SyncOpsTable {
  inventory_id: string;
  op_id: string;
  /** the first result of the operation, as JSON */
  result: string;
  recorded_at: number;
}

export interface DeletedItemsTable {
  inventory_id: string;
  item_id: string;
  deleted_at: number;
}

export interface SettingsTable {
  inventory_id: string;
  key: string;
  value: string;
  revision: number;
}

/** `shopping`: a change of the shopping list or a minimum stock (always an upsert: no tombstones) */
export type ChangeEntity = 'item' | 'category' | 'location' | 'setting' | 'inventory' | 'shopping';
export type ChangeOp = 'upsert' | 'delete';

export interface ChangeLogTable {
  id: Generated<number>;
  inventory_id: string;
  revision: number;
  entity: ChangeEntity;
  entity_id: string;
  op: ChangeOp;
  changed_at: number;
}

/** One change of an item's quantity or existence (the journal): who, from where, by how much. */
export interface JournalTable {
  seq: Generated<number>;
  id: string;
  inventory_id: string;
  at: number;
  item_id: string;
  item_name: string;
  /** null once the user is deleted; username stays */
  user_id: string | null;
  username: string;
  device_id: string | null;
  op_id: string | null;
  source: 'rest' | 'sync' | 'import' | 'shopping' | 'admin';
  kind: 'create' | 'set' | 'adjust' | 'delete';
  delta: number;
  quantity_after: number;
}

/** An item's minimum and target quantity, kept apart from the app's item record. */
export interface StockLevelsTable {
  inventory_id: string;
  item_id: string;
  min_quantity: number;
  target_quantity: number;
  updated_at: number;
}

/** A manual shopping-list entry, or the checked mark of a derived below-minimum entry. */
export interface ShoppingEntriesTable {
  inventory_id: string;
  id: string;
  source: 'manual' | 'below_minimum';
  item_id: string | null;
  name: string;
  quantity: number | null;
  unit: string;
  /** 0/1 */
  checked: number;
  created_at: number;
  updated_at: number;
}

/** The feed key of an inventory's expiry calendar, as its SHA-256 (hex). */
export interface CalendarKeysTable {
  inventory_id: string;
  key_hash: string;
  created_at: number;
}
