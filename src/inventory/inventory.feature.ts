import type { Feature, FeatureDeps } from '#src/feature.js';
import { calendarFeedRoutes } from './calendar/calendar.routes.js';
import { adminInventoryReadRoutes } from './inventory.admin.routes.js';
import { inventoryRoutes } from './inventory.routes.js';
import { createInventoryService } from './inventory.service.js';

const HOUR_MS = 3600_000;

/**
 * The signed-in user's inventory: its store (src/inventory/store/) and the faces over it (items,
 * categories and locations, settings, sync, the offline queue, summary, transfer, journal,
 * shopping, stock levels, readiness, calendar), their routes and the store's pruning jobs.
 */
export function inventoryFeature(deps: Omit<FeatureDeps, 'log'>) {
  const { config, database, bus, clock } = deps;
  const inventory = createInventoryService({
    db: database.db,
    write: database.write,
    writeSync: database.writeSync,
    bus,
    clock,
    clockSkewMs: config.clockSkewMs,
    timeZone: config.timeZone,
    journalDays: config.journalDays,
  });
  const feature: Feature = {
    name: 'inventory',
    routes: (guards) => [
      inventoryRoutes({ inventory, guards }),
      adminInventoryReadRoutes({ inventory, guards }),
      calendarFeedRoutes(inventory.calendar),
    ],
    jobs: () => [
      { name: 'inventory-history-pruning', everyMs: HOUR_MS, run: () => inventory.pruneHistory() },
      { name: 'journal-pruning', everyMs: HOUR_MS, run: () => inventory.journal.prune() },
    ],
  };
  return { inventory, feature };
}
