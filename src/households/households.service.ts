import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Executor } from '#src/db/executor.js';
import type { DB } from '#src/db/types.js';
import { notFound } from '#src/http/errors.js';
import type { InventoryService } from '#src/inventory/inventory.service.js';
import type { AdminItem, InventoryStats, InventoryView, Totals } from './households.schemas.js';
import * as repo from './households.repository.js';

const RECENT_WINDOW_MS = 30 * 24 * 3600 * 1000;

/**
 * Inventories as a whole: creating one for a new user, removing one nobody belongs to any more
 * (in the transaction that left it empty), the admin's list, names and statistics. What is in an
 * inventory, its revision and change log belong to the inventory feature (src/inventory/).
 */
export function createHouseholdsService(deps: {
  db: Kysely<DB>;
  clock: () => number;
  inventory: InventoryService;
}) {
  const { db, clock, inventory } = deps;

  async function list(): Promise<InventoryView[]> {
    const [inventories, members] = await Promise.all([
      repo.listInventories(db),
      repo.listMembers(db),
    ]);
    return inventories.map((inv) => ({
      inventoryId: inv.id,
      name: inv.name,
      users: members
        .filter((m) => m.inventory_id === inv.id)
        .map((m) => ({ id: m.id, username: m.username, isAdmin: Boolean(m.is_admin) })),
    }));
  }

  async function statsPerInventory(): Promise<InventoryStats[]> {
    const [inventories, { items, categories, locations }, members, activity] = await Promise.all([
      repo.listInventories(db),
      inventory.contentsPerInventory(),
      repo.membersPerInventory(db),
      inventory.activitySince(clock() - RECENT_WINDOW_MS),
    ]);
    return inventories.map((inv) => ({
      inventoryId: inv.id,
      inventoryName: inv.name,
      totalItems: items.get(inv.id) ?? 0,
      totalLocations: locations.get(inv.id) ?? 0,
      totalCategories: categories.get(inv.id) ?? 0,
      recentTransactions: activity.get(inv.id)?.recent ?? 0,
      lastUpdated: activity.get(inv.id)?.lastUpdated ?? null,
      userCount: members.get(inv.id) ?? 0,
    }));
  }

  return {
    /** A new user gets a new, empty inventory of their own, created in the user's transaction. */
    async createInventory(trx: Executor): Promise<string> {
      const id = crypto.randomUUID();
      await repo.insertInventory(trx, {
        id,
        name: '',
        revision: 0,
        history_floor: 0,
        created_at: clock(),
      });
      return id;
    },

    /**
     * Locks the inventories a membership move touches until the transaction ends; 404 when the
     * `target` (null: a new one will be created) does not exist.
     */
    async lockForMove(trx: Executor, target: string | null, previous: string | null) {
      const existing = await repo.lockInventories(trx, [target, previous]);
      if (target !== null && !existing.has(target))
        throw notFound(`No inventory with id ${target}`);
    },

    /** Removes the inventory if nobody belongs to it any more (the last member left or was deleted). */
    async deleteIfOrphan(trx: Executor, inventoryId: string): Promise<boolean> {
      await repo.lockInventories(trx, [inventoryId]);
      return repo.deleteInventoryIfOrphan(trx, inventoryId);
    },

    memberIds: (inventoryId: string) => repo.listMemberIds(db, inventoryId),

    /** Every inventory's id, in id order. */
    ids: () => repo.listInventoryIds(db),

    exists: (inventoryId: string) => repo.inventoryExists(db, inventoryId),

    /** The inventory's name ('' until an admin names it); null when there is no such inventory. */
    nameOf: (inventoryId: string) => repo.findInventoryName(db, inventoryId),

    list,

    async rename(inventoryId: string, name: string): Promise<InventoryView> {
      await inventory.rename(inventoryId, name);
      const view = (await list()).find((v) => v.inventoryId === inventoryId);
      if (!view) throw notFound(`No inventory with id ${inventoryId}`);
      return view;
    },

    statsPerInventory,

    /** An inventory's items for the admin's read-only view, by name; 404 when it does not exist. */
    async items(inventoryId: string): Promise<AdminItem[]> {
      if (!(await repo.inventoryExists(db, inventoryId))) {
        throw notFound(`No inventory with id ${inventoryId}`);
      }
      const caller = { inventoryId };
      const [items, categories, locations] = await Promise.all([
        inventory.items.list(caller),
        inventory.categories.list(caller),
        inventory.locations.list(caller),
      ]);
      const nameOf = (list: { id: number; name: string }[], id: number) =>
        list.find((n) => n.id === id)?.name ?? '';
      return items
        .map((item) => ({
          id: item.id,
          name: item.name,
          quantity: item.quantity,
          unit: item.unit,
          expiryDate: item.expiryDate,
          category: nameOf(categories, item.categoryId),
          location: nameOf(locations, item.locationId),
          notes: item.notes,
        }))
        .sort((a, b) => a.name.localeCompare(b.name));
    },

    async totals(): Promise<Totals> {
      const per = await statsPerInventory();
      const lastUpdated = per.reduce<number | null>(
        (max, s) =>
          s.lastUpdated !== null && (max === null || s.lastUpdated > max) ? s.lastUpdated : max,
        null,
      );
      return {
        totalItems: per.reduce((n, s) => n + s.totalItems, 0),
        totalLocations: per.reduce((n, s) => n + s.totalLocations, 0),
        totalCategories: per.reduce((n, s) => n + s.totalCategories, 0),
        recentTransactions: per.reduce((n, s) => n + s.recentTransactions, 0),
        lastUpdated,
      };
    },
  };
}

export type HouseholdsService = ReturnType<typeof createHouseholdsService>;
