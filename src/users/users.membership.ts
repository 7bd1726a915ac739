import type { Kysely } from 'kysely';
import type { Executor } from '#src/db/executor.js';
import type { DB } from '#src/db/types.js';
import { notFound } from '#src/http/errors.js';
import type { HouseholdsService } from '#src/households/households.service.js';
import type { EventBus } from '#src/events/bus.js';
import * as repo from './users.repository.js';
import { toUser, type User } from './users.mapper.js';

/**
 * Which inventory a user belongs to, after the one they were created with: assigned to an existing
 * one or detached into a new one (part of the users service).
 */
export function createMembership(deps: {
  db: Kysely<DB>;
  households: HouseholdsService;
  bus: EventBus;
  /** drops the cached user, whose cached caller carries the inventory id */
  credentials: { forgetUser(userId: string): void };
}) {
  const { db, households, bus, credentials } = deps;

  /**
   * Moves a user into the inventory `target` picks, in one transaction that also removes the
   * inventory left behind if nobody belongs to it any more. The user's sockets are told
   * to resynchronize after commit.
   */
  async function moveUser(
    userId: string,
    target: (trx: Executor, previous: string | null) => Promise<string>,
    reason: string,
  ): Promise<User> {
    const { user, previous } = await db.transaction().execute(async (trx) => {
      const row = await repo.lockUser(trx, userId);
      if (!row) throw notFound(`No user with id ${userId}`);
      const inventoryId = await target(trx, row.inventory_id);
      await repo.setUserInventory(trx, userId, inventoryId);
      if (row.inventory_id && row.inventory_id !== inventoryId) {
        await households.deleteIfOrphan(trx, row.inventory_id);
      }
      return { user: toUser({ ...row, inventory_id: inventoryId }), previous: row.inventory_id };
    });
    if (previous !== user.inventoryId) {
      credentials.forgetUser(userId); // the cached caller carries the inventory id
      await bus.publishAfterCommit({
        type: 'fullSyncRequired',
        userId,
        inventoryId: user.inventoryId,
        reason,
      });
    }
    return user;
  }

  return {
    /** The user joins an existing inventory and sees its items. */
    assignInventory(userId: string, inventoryId: string): Promise<User> {
      return moveUser(
        userId,
        async (trx, previous) => {
          await households.lockForMove(trx, inventoryId, previous);
          return inventoryId;
        },
        'assigned',
      );
    },

    /** The user moves into a new, empty inventory. */
    detachInventory(userId: string): Promise<User> {
      return moveUser(
        userId,
        async (trx, previous) => {
          await households.lockForMove(trx, null, previous);
          return households.createInventory(trx);
        },
        'detached',
      );
    },
  };
}
