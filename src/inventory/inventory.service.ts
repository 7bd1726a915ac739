import { badRequest, notFound } from '#src/http/errors.js';
import { createCalendarService } from './calendar/calendar.service.js';
import { createMutate, type StoreDeps } from '#src/inventory/store/inventory.mutate.js';
import * as repo from '#src/inventory/store/inventory.repository.js';
import { createItemsService } from './items/items.service.js';
import { createNamedService } from './named/named.service.js';
import { pruneDeleted } from '#src/inventory/store/items.deleted.repository.js';
import { itemsWithAdjustsBefore } from '#src/inventory/store/items.adjusts.repository.js';
import { foldOldAdjusts } from '#src/inventory/store/items.writer.js';
import { createOfflineService } from './offline/offline.service.js';
import { pruneResults } from '#src/inventory/store/offline.repository.js';
import { createSettingsService } from './settings/settings.service.js';
import { createReadinessService } from './readiness/readiness.service.js';
import { createSummaryService } from './summary/summary.service.js';
import { createReplaceService } from './sync/replace.service.js';
import { createTransferService } from './transfer/transfer.service.js';
import { createJournalService } from './journal/journal.service.js';
import { createShoppingService } from './shopping/shopping.service.js';
import { createStockLevelsService } from './stock-levels/stock-levels.service.js';
import { createSnapshotCache } from '#src/inventory/store/snapshot.cache.js';
import { createSyncService } from './sync/sync.service.js';

export type { Caller } from '#src/inventory/store/inventory.caller.js';
export type { ItemsService } from './items/items.service.js';
export type { SettingsService } from './settings/settings.service.js';

/** Change-log rows (and so tombstones) are kept this long; older `since` values need a full sync. */
const HISTORY_MS = 90 * 24 * 3600 * 1000;
const MAX_NAME_LENGTH = 100;

/**
 * The inventory feature: items, categories, locations, settings, full and delta sync of the
 * signed-in user's inventory (one service per part, each used by its routes), plus what other
 * features ask of an inventory. Every write goes through one `mutate` (inventory.mutate.ts),
 * which bumps the revision, logs the change and publishes inventoryUpdated after commit.
 */
export function createInventoryService(
  deps: StoreDeps & {
    /** LARDER_CLOCK_SKEW in ms (default 60 s: the CLI's writers need no config) */
    clockSkewMs?: number;
    /** LARDER_TZ: the day expiry dates are read against (default UTC: the CLI needs no config) */
    timeZone?: string;
    /** LARDER_JOURNAL_DAYS (default 400); 0: no journal rows are written */
    journalDays?: number;
  },
) {
  const { db, clock } = deps;
  const journalDays = deps.journalDays ?? 400;
  const cache = createSnapshotCache();
  const mutate = createMutate({
    ...deps,
    clockSkewMs: deps.clockSkewMs ?? 60_000,
    afterWrite: (inventoryId) => cache.forget(inventoryId),
    journaling: journalDays > 0,
  });

  async function pruneHistory(): Promise<number> {
    const cutoff = clock() - HISTORY_MS;
    const pruned = await db.transaction().execute(async (trx) => {
      // operation ids and ended item ids are remembered as long as the history
      await pruneResults(trx, cutoff);
      await pruneDeleted(trx, cutoff);
      return repo.pruneHistory(trx, cutoff);
    });
    await foldAdjusts(cutoff);
    return pruned;
  }

  /** Adjusts older than the history fold into their item's base, an inventory at a time. */
  async function foldAdjusts(cutoff: number): Promise<void> {
    for (;;) {
      const found = await itemsWithAdjustsBefore(db, cutoff);
      if (found.length === 0) return;
      const perInventory = new Map<string, string[]>();
      for (const { inventory_id: inventoryId, item_id: itemId } of found) {
        perInventory.set(inventoryId, [...(perInventory.get(inventoryId) ?? []), itemId]);
      }
      for (const [inventoryId, itemIds] of perInventory) {
        await mutate(inventoryId, (ctx) => foldOldAdjusts(ctx, itemIds, cutoff));
      }
      // each round deletes what it folded: the next one reads further, until none are left
    }
  }

  const sync = createSyncService({ db, cache });
  return {
    sync,
    offline: createOfflineService({ mutate, sync }),
    replace: createReplaceService({ mutate }),
    summary: createSummaryService({ db, clock }),
    calendar: createCalendarService({ db, clock }),
    readiness: createReadinessService({ db, clock, timeZone: deps.timeZone ?? 'UTC' }),
    items: createItemsService({ db, mutate }),
    categories: createNamedService({ db, mutate }, 'categories'),
    locations: createNamedService({ db, mutate }, 'locations'),
    settings: createSettingsService({ db, mutate }),
    transfer: createTransferService({ db, mutate, clock }),
    journal: createJournalService({ db, clock, days: journalDays }),
    stockLevels: createStockLevelsService({ db, mutate }),
    shopping: createShoppingService({ db, mutate }),

    /** An admin renames any inventory (404 if none); logged as a change even to the same name. */
    rename(inventoryId: string, rawName: string): Promise<void> {
      const name = rawName.trim();
      if (name.length > MAX_NAME_LENGTH) {
        throw badRequest(`body.name must be at most ${MAX_NAME_LENGTH} characters`);
      }
      const missing = () => notFound(`No inventory with id ${inventoryId}`);
      return mutate(
        inventoryId,
        async (ctx) => {
          await repo.setInventoryName(ctx.trx, inventoryId, name);
          ctx.changes.push({ entity: 'inventory', entityId: inventoryId, op: 'upsert' });
        },
        { missing },
      );
    },

    /** 404 unless the inventory exists (the admin's reads of one inventory). */
    async requireInventory(inventoryId: string): Promise<void> {
      if (!(await repo.findInventory(db, inventoryId))) {
        throw notFound(`No inventory with id ${inventoryId}`);
      }
    },

    /** The inventory's current revision (0 when it does not exist). */
    revisionOf: async (inventoryId: string) =>
      Number((await repo.findInventory(db, inventoryId))?.revision ?? 0),

    /** Per inventory: how many items, categories and locations it holds, for statistics. */
    async contentsPerInventory() {
      const [items, categories, locations] = await Promise.all([
        repo.countPerInventory(db, 'items'),
        repo.countPerInventory(db, 'categories'),
        repo.countPerInventory(db, 'locations'),
      ]);
      return { items, categories, locations };
    },

    /** Per inventory: changes since `since` and the time of the newest one, for statistics. */
    activitySince: (since: number) => repo.activityPerInventory(db, since),

    /** Forgets history older than 90 days; returns the number of change-log rows removed. */
    pruneHistory,
  };
}

export type InventoryService = ReturnType<typeof createInventoryService>;
