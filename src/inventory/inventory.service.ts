import { createMutate, type InventoryDeps } from './inventory.core.js';
import { createItemsService } from './inventory.items.js';
import { createNamedService } from './inventory.named.js';
import { createReplaceService } from './inventory.replace.js';
import { createSettingsService } from './inventory.settings.js';
import { createSummaryService } from './inventory.summary.js';
import { createSyncService } from './inventory.sync.js';

export type { Caller, InventoryDeps } from './inventory.core.js';

/**
 * The signed-in user's inventory: items, categories, locations, settings, full and delta sync.
 * Every write is one transaction that bumps the revision and logs the change; inventoryUpdated is
 * published after commit.
 */
export function createInventoryService(deps: InventoryDeps) {
  const mutate = createMutate(deps);
  const sync = createSyncService(deps);
  return {
    snapshot: sync.snapshot,
    changes: sync.changes,
    pruneHistory: sync.pruneHistory,
    replace: createReplaceService(mutate),
    summary: createSummaryService(deps),
    items: createItemsService(deps, mutate),
    categories: createNamedService(deps, mutate, 'categories', 'category'),
    locations: createNamedService(deps, mutate, 'locations', 'location'),
    settings: createSettingsService(deps, mutate),
  };
}

export type InventoryService = ReturnType<typeof createInventoryService>;
