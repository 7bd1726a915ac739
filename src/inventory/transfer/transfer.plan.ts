import type { ItemsTable, NamedEntityTable } from '#src/db/types.js';
import {
  itemFields,
  nameKey,
  sameItemContent,
  type ItemFields,
} from '#src/inventory/store/inventory.mapper.js';
import type { Contents } from '#src/inventory/store/transfer.repository.js';
import type { ImportRow, RowAction } from './transfer.schemas.js';

interface PlannedRow {
  row: ImportRow;
  id: string;
  action: RowAction;
}

/** What an import will do: names to create, and per row create / update / unchanged. */
export interface ImportPlan {
  categoriesToCreate: string[];
  locationsToCreate: string[];
  rows: PlannedRow[];
}

/** Names not in `existing` (ignoring case), each once, in the order first met. */
function missingNames(existing: NamedEntityTable[], wanted: string[]): string[] {
  const known = new Set(existing.map((row) => row.name_key));
  const missing: string[] = [];
  for (const name of wanted) {
    const key = nameKey(name);
    if (!known.has(key)) {
      known.add(key);
      missing.push(name.trim());
    }
  }
  return missing;
}

/** The stored fields of a row once its names are resolved to ids. */
export function rowFields(
  row: ImportRow,
  ids: { category: Map<string, number>; location: Map<string, number> },
  now: number,
): ItemFields {
  return itemFields(
    {
      name: row.name,
      categoryId: ids.category.get(nameKey(row.category))!,
      locationId: ids.location.get(nameKey(row.location))!,
      quantity: row.quantity,
      unit: row.unit,
      unitPrice: row.unitPrice,
      kcalPerKg: row.kcalPerKg,
      expiryDate: row.expiryDate,
      notes: row.notes,
      lastUpdated: row.lastUpdated ?? undefined,
    },
    now,
  );
}

/**
 * Plans an import against the inventory's contents: a row whose id is stored updates that item
 * (or is unchanged when its content is the same or the row is older); other rows create items (a new UUID when the
 * row has no id). Items not named by the import stay as they are.
 */
export function planImport(
  contents: Contents,
  rows: ImportRow[],
  extra: { categories: string[]; locations: string[] },
  newId: () => string,
): ImportPlan {
  const stored = new Map<string, ItemsTable>(contents.items.map((item) => [item.id, item]));
  const categoriesToCreate = missingNames(contents.categories, [
    ...extra.categories,
    ...rows.map((r) => r.category),
  ]);
  const locationsToCreate = missingNames(contents.locations, [
    ...extra.locations,
    ...rows.map((r) => r.location),
  ]);
  // names of categories/locations not created yet get placeholder ids to compare content
  const ids = {
    category: new Map(contents.categories.map((c) => [c.name_key, Number(c.id)])),
    location: new Map(contents.locations.map((l) => [l.name_key, Number(l.id)])),
  };
  const planned = rows.map((row): PlannedRow => {
    const id = row.id ?? newId();
    const existing = stored.get(id);
    if (!existing) return { row, id, action: 'create' };
    // a row older than the stored item does not overwrite it (as PUT's stale_update)
    if (row.lastUpdated !== null && row.lastUpdated < Number(existing.last_updated)) {
      return { row, id, action: 'unchanged' };
    }
    const category = ids.category.get(nameKey(row.category));
    const location = ids.location.get(nameKey(row.location));
    if (category === undefined || location === undefined) return { row, id, action: 'update' };
    const fields = rowFields(row, ids, Number(existing.last_updated));
    const same = sameItemContent(existing, fields, row.lastUpdated !== null);
    return { row, id, action: same ? 'unchanged' : 'update' };
  });
  return { categoriesToCreate, locationsToCreate, rows: planned };
}
