import { badRequest } from '#src/http/errors.js';
import { nameKey } from '#src/inventory/store/inventory.mapper.js';
import type { ReplaceInput } from './sync.schemas.js';

function checkUnique<T>(list: T[], keyOf: (x: T) => string | number, what: string): void {
  const seen = new Set<string | number>();
  for (const entry of list) {
    const key = keyOf(entry);
    if (seen.has(key)) throw badRequest(`body.${what} contains ${key} twice`);
    seen.add(key);
  }
}

/** Rejects a whole-inventory body that contradicts itself, before anything is written. */
export function validateReplace(body: ReplaceInput, inventoryId: string): void {
  if (body.inventoryId !== undefined && body.inventoryId !== inventoryId) {
    throw badRequest('body.inventoryId is not the inventory of the signed-in user');
  }
  for (const list of [body.categories, body.locations]) {
    for (const entry of list) {
      if (entry.id === undefined)
        throw badRequest('body.categories/locations: every entry needs an id');
      if (entry.name.trim() === '') throw badRequest('body.name must not be blank');
    }
  }
  checkUnique(body.items, (i) => i.id ?? '', 'items ids');
  checkUnique(body.categories, (c) => c.id!, 'categories ids');
  checkUnique(body.categories, (c) => nameKey(c.name), 'categories names');
  checkUnique(body.locations, (l) => l.id!, 'locations ids');
  checkUnique(body.locations, (l) => nameKey(l.name), 'locations names');
  const categories = new Set(body.categories.map((c) => c.id));
  const locations = new Set(body.locations.map((l) => l.id));
  body.items.forEach((item, i) => {
    if (item.id === undefined) throw badRequest(`body.items.${i}.id is required`);
    if (!categories.has(item.categoryId)) {
      throw badRequest(`body.items.${i}.categoryId ${item.categoryId} is not in body.categories`);
    }
    if (!locations.has(item.locationId)) {
      throw badRequest(`body.items.${i}.locationId ${item.locationId} is not in body.locations`);
    }
  });
}
