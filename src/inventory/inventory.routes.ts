import type { Routes } from '#src/http/route-docs.js';
import type { Guards } from '#src/http/auth.js';
import { calendarKeyRoutes } from './calendar/calendar.routes.js';
import { ItemSchema, NamedSchema } from './inventory.schemas.js';
import type { InventoryService } from './inventory.service.js';
import { itemsRoutes } from './items/items.routes.js';
import { journalRoutes } from './journal/journal.routes.js';
import { shoppingRoutes } from './shopping/shopping.routes.js';
import { stockLevelsRoutes } from './stock-levels/stock-levels.routes.js';
import { namedRoutes } from './named/named.routes.js';
import { offlineRoutes } from './offline/offline.routes.js';
import { readinessRoutes } from './readiness/readiness.routes.js';
import { settingsRoutes } from './settings/settings.routes.js';
import { summaryRoutes } from './summary/summary.routes.js';
import { SummarySchema } from './summary/summary.schemas.js';
import { syncRoutes } from './sync/sync.routes.js';
import { ChangesSchema, SnapshotSchema } from './sync/sync.schemas.js';
import { transferRoutes } from './transfer/transfer.routes.js';

/**
 * /api/inventory/**: the caller's own inventory, taken from the access token. The one place that
 * binds the parts' routes; every one of them needs a signed-in user.
 */
export const inventoryRoutes: Routes<{ inventory: InventoryService; guards: Guards }> =
  ({ inventory, guards }) =>
  async (app) => {
    for (const schema of [ItemSchema, NamedSchema, SnapshotSchema, ChangesSchema, SummarySchema]) {
      app.addSchema(schema);
    }
    guards.guardRoutes(app, guards.authenticate);

    await app.register(syncRoutes({ sync: inventory.sync, replace: inventory.replace }));
    await app.register(summaryRoutes(inventory.summary));
    await app.register(readinessRoutes(inventory.readiness));
    await app.register(calendarKeyRoutes(inventory.calendar));
    await app.register(settingsRoutes(inventory.settings));
    await app.register(itemsRoutes(inventory.items));
    await app.register(namedRoutes(inventory.categories, 'categories'));
    await app.register(namedRoutes(inventory.locations, 'locations'));
    await app.register(transferRoutes(inventory.transfer));
    await app.register(offlineRoutes(inventory.offline));
    await app.register(journalRoutes(inventory.journal));
    await app.register(stockLevelsRoutes(inventory.stockLevels));
    await app.register(shoppingRoutes(inventory.shopping));
  };
