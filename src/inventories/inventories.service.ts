import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Executor } from '../db/executor.js';
import type { DB } from '../db/types.js';
import { badRequest, notFound } from '../http/errors.js';
import type { EventBus } from '../realtime/bus.js';
import { lockUser } from '../users/users.repository.js';
import { toUser, type User } from '../users/users.mapper.js';
import * as repo from './inventories.repository.js';

export const RECENT_WINDOW_MS = 30 * 24 * 3600 * 1000;

export interface InventoryView {
  inventoryId: string;
  name: string;
  users: { id: string; username: string; isAdmin: boolean }[];
}

export interface Totals {
  totalItems: number;
  totalLocations: number;
  totalCategories: number;
  recentTransactions: number;
  lastUpdated: number | null;
}

export interface InventoryStats extends Totals {
  inventoryId: string;
  inventoryName: string;
  userCount: number;
}

/**
 * The sharing rules: every user belongs to exactly one inventory; a new user gets a new one;
 * assign and detach move a user; an inventory left without users is removed in the same
 * transaction.
 */
export function createInventoriesService(deps: {
  db: Kysely<DB>;
  bus: EventBus;
  clock: () => number;
}) {
  const { db, bus, clock } = deps;

  async function createInventory(trx: Executor): Promise<string> {
    const id = crypto.randomUUID();
    await repo.insertInventory(trx, {
      id,
      name: '',
      revision: 0,
      history_floor: 0,
      created_at: clock(),
    });
    return id;
  }

  async function moveUser(
    userId: string,
    target: (trx: Executor, previous: string | null) => Promise<string>,
    reason: string,
  ) {
    const { user, previous } = await db.transaction().execute(async (trx) => {
      const row = await lockUser(trx, userId);
      if (!row) throw notFound(`No user with id ${userId}`);
      const inventoryId = await target(trx, row.inventory_id);
      await repo.setMembership(trx, userId, inventoryId);
      if (row.inventory_id && row.inventory_id !== inventoryId) {
        await repo.deleteInventoryIfOrphan(trx, row.inventory_id);
      }
      return { user: toUser({ ...row, inventory_id: inventoryId }), previous: row.inventory_id };
    });
    if (previous !== user.inventoryId) {
      await bus.publish({
        type: 'fullSyncRequired',
        userId,
        inventoryId: user.inventoryId,
        reason,
      });
    }
    return user;
  }

  return {
    createInventory,

    /** Removes the inventory if nobody belongs to it any more (rule 4). */
    async deleteIfOrphan(trx: Executor, inventoryId: string): Promise<boolean> {
      await repo.lockInventories(trx, [inventoryId]);
      return repo.deleteInventoryIfOrphan(trx, inventoryId);
    },

    memberIds: (inventoryId: string) => repo.listMemberIds(db, inventoryId),

    /** The inventory's current revision (0 when it does not exist). */
    revisionOf: async (inventoryId: string) =>
      Number((await repo.findInventory(db, inventoryId))?.revision ?? 0),

    /** Rule 2: the user joins an existing inventory and sees its items. */
    assignUser(userId: string, inventoryId: string): Promise<User> {
      return moveUser(
        userId,
        async (trx, previous) => {
          const existing = await repo.lockInventories(trx, [inventoryId, previous]);
          if (!existing.has(inventoryId)) throw notFound(`No inventory with id ${inventoryId}`);
          return inventoryId;
        },
        'assigned',
      );
    },

    /** Rule 3: the user moves into a new, empty inventory. */
    detachUser(userId: string): Promise<User> {
      return moveUser(
        userId,
        async (trx, previous) => {
          await repo.lockInventories(trx, [previous]);
          return createInventory(trx);
        },
        'detached',
      );
    },

    async list(): Promise<InventoryView[]> {
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
    },

    async rename(inventoryId: string, rawName: string): Promise<InventoryView> {
      const name = rawName.trim();
      if (name.length > 100) throw badRequest('body.name must be at most 100 characters');
      const revision = await db.transaction().execute(async (trx) => {
        if (!(await repo.findInventory(trx, inventoryId)))
          throw notFound(`No inventory with id ${inventoryId}`);
        await repo.setInventoryName(trx, inventoryId, name);
        const rev = await repo.bumpRevision(trx, inventoryId);
        await repo.insertChanges(trx, inventoryId, rev, clock(), [
          { entity: 'inventory', entityId: inventoryId, op: 'upsert' },
        ]);
        return rev;
      });
      await bus.publish({ type: 'inventoryUpdated', inventoryId, revision });
      const view = (await this.list()).find((v) => v.inventoryId === inventoryId);
      if (!view) throw notFound(`No inventory with id ${inventoryId}`);
      return view;
    },

    async statsPerInventory(): Promise<InventoryStats[]> {
      const [inventories, items, categories, locations, members, changes] = await Promise.all([
        repo.listInventories(db),
        repo.countPerInventory(db, 'items'),
        repo.countPerInventory(db, 'categories'),
        repo.countPerInventory(db, 'locations'),
        repo.membersPerInventory(db),
        repo.changesPerInventory(db, clock() - RECENT_WINDOW_MS),
      ]);
      return inventories.map((inv) => ({
        inventoryId: inv.id,
        inventoryName: inv.name,
        totalItems: items.get(inv.id) ?? 0,
        totalLocations: locations.get(inv.id) ?? 0,
        totalCategories: categories.get(inv.id) ?? 0,
        recentTransactions: changes.get(inv.id)?.recent ?? 0,
        lastUpdated: changes.get(inv.id)?.lastUpdated ?? null,
        userCount: members.get(inv.id) ?? 0,
      }));
    },

    async totals(): Promise<Totals> {
      const per = await this.statsPerInventory();
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

export type InventoriesService = ReturnType<typeof createInventoriesService>;
