import type { Kysely } from 'kysely';
import type { DB } from '#src/db/types.js';
import type { Feature } from '#src/feature.js';
import type { InventoryService } from '#src/inventory/inventory.service.js';
import { adminInventoryRoutes } from './inventories.routes.js';
import { createInventoriesService } from './inventories.service.js';

/** Inventory membership and the admin's views of inventories. */
export function inventoriesFeature(deps: {
  db: Kysely<DB>;
  clock: () => number;
  inventory: InventoryService;
}) {
  const inventories = createInventoriesService(deps);
  const feature: Feature = {
    name: 'inventories',
    routes: (guards) => [adminInventoryRoutes({ inventories, guards })],
  };
  return { inventories, feature };
}
