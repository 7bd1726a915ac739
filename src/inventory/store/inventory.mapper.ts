import type { ItemsTable, NamedEntityTable, SettingsTable } from '#src/db/types.js';
import type { Item, ItemInput, Named, Settings } from '#src/inventory/inventory.schemas.js';
import type { Values } from './items.merge.js';

/**
 * Rows to wire objects (numbers parsed: PostgreSQL returns bigints as strings), and the few
 * wire-to-row conversions that the item, named and sync writes share.
 */

export function toItem(row: ItemsTable): Item {
  return {
    id: row.id,
    name: row.name,
    categoryId: Number(row.category_id),
    quantity: Number(row.quantity),
    unit: row.unit,
    unitPrice: Number(row.unit_price),
    kcalPerKg: row.kcal_per_kg === null ? null : Number(row.kcal_per_kg),
    expiryDate: row.expiry_date,
    locationId: Number(row.location_id),
    notes: row.notes,
    lastUpdated: Number(row.last_updated),
    revision: Number(row.revision),
  };
}

/** `list.map(fn)`, awaiting `pace` every few thousand entries. */
export async function mapPaced<T, U>(list: T[], fn: (x: T) => U, pace: () => Promise<void>) {
  const out: U[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    out[i] = fn(list[i]!);
    if (i % 2000 === 1999) await pace();
  }
  return out;
}

export function toNamed(row: NamedEntityTable): Named {
  return { id: Number(row.id), name: row.name };
}

export function toSettings(rows: SettingsTable[]): Settings {
  const settings: Settings = {};
  for (const row of rows) settings[row.key] = row.value;
  return settings;
}

/** An item row's content: everything but its keys and revision. */
export type ItemFields = Omit<ItemsTable, 'inventory_id' | 'id' | 'revision'>;

/** The stored content of an item sent by a client; `now` stands in for a missing lastUpdated. */
export function itemFields(input: ItemInput, now: number): ItemFields {
  return {
    name: input.name,
    category_id: input.categoryId,
    location_id: input.locationId,
    quantity: input.quantity,
    unit: input.unit,
    unit_price: input.unitPrice,
    kcal_per_kg: input.kcalPerKg ?? null,
    expiry_date: input.expiryDate ?? null,
    notes: input.notes ?? '',
    last_updated: input.lastUpdated ?? now,
  };
}

function storedFields(row: ItemsTable): ItemFields {
  const { inventory_id: _inventory, id: _id, revision: _revision, ...fields } = row;
  return {
    ...fields,
    category_id: Number(row.category_id),
    location_id: Number(row.location_id),
    quantity: Number(row.quantity),
    unit_price: Number(row.unit_price),
    kcal_per_kg: row.kcal_per_kg === null ? null : Number(row.kcal_per_kg),
    last_updated: Number(row.last_updated),
  };
}

/** Same stored content; `last_updated` only counts when the client sent one. */
export function sameItemContent(row: ItemsTable, fields: ItemFields, compareTime: boolean) {
  const stored = storedFields(row);
  // the keys of `fields`: a row read with its merge state has one more column
  return (Object.keys(fields) as (keyof ItemFields)[]).every(
    (f) => (f === 'last_updated' && !compareTime) || stored[f] === fields[f],
  );
}

/** An item row's content as the merge rules (items/items.merge.ts) name its fields. */
export function valuesOfFields(fields: ItemFields): Values {
  return {
    name: fields.name,
    categoryId: fields.category_id,
    quantity: fields.quantity,
    unit: fields.unit,
    unitPrice: fields.unit_price,
    kcalPerKg: fields.kcal_per_kg,
    expiryDate: fields.expiry_date,
    locationId: fields.location_id,
    notes: fields.notes,
  };
}

/** An item sent by a client as the merge rules (items/items.merge.ts) name its fields. */
export function valuesOfInput(input: ItemInput): Values {
  return valuesOfFields(itemFields(input, 0));
}

/** Names of categories and locations are compared ignoring letter case and surrounding blanks. */
export function nameKey(name: string): string {
  return name.trim().toLowerCase();
}
