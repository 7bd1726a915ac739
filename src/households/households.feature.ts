import type { Kysely } from 'kysely';
import type { DB } from '#src/db/types.js';
import type { Feature } from '#src/feature.js';
import type { InventoryService } from '#src/inventory/inventory.service.js';
import { adminInventoryRoutes } from './households.routes.js';
import { createHouseholdsService } from './households.service.js';

/** Households: inventories as a whole (created, removed, named, counted), and the admin's views of them. */
export function householdsFeature(deps: {
  db: Kysely<DB>;
  clock: () => number;
  inventory: InventoryService;
}) {
  const households = createHouseholdsService(deps);
  const feature: Feature = {
    name: 'households',
    routes: (guards) => [adminInventoryRoutes({ households, guards })],
  };
  return { households, feature };
}
