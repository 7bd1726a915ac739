import type { Kysely } from 'kysely';
import type { Executor } from '../db/executor.js';
import type { DB } from '../db/types.js';
import type { AppError } from '../http/errors.js';
import type { EventBus } from '../realtime/bus.js';
import { noInventory } from './inventory.caller.js';
import * as repo from './inventory.repository.js';

/** The open write: rows written now carry `revision`; push one record per changed entity. */
export interface MutationContext {
  trx: Executor;
  inventoryId: string;
  revision: number;
  now: number;
  changes: repo.ChangeRecord[];
}

/** `missing` is the error when the inventory does not exist (409 for a caller's own one). */
export type Mutate = <T>(
  inventoryId: string,
  work: (ctx: MutationContext) => Promise<T>,
  missing?: () => AppError,
) => Promise<T>;

/**
 * The one way to change an inventory: a transaction that locks the inventory, lets `work` write
 * its rows, then (only if something changed) bumps the revision and writes the change log. After
 * commit it publishes inventoryUpdated so every member's sockets hear of it.
 */
export function createMutate(deps: { db: Kysely<DB>; bus: EventBus; clock: () => number }): Mutate {
  const { db, bus, clock } = deps;
  return async (inventoryId, work, missing = noInventory) => {
    const { result, revision } = await db.transaction().execute(async (trx) => {
      const inventory = await repo.lockInventory(trx, inventoryId);
      if (!inventory) throw missing();
      const ctx: MutationContext = {
        trx,
        inventoryId,
        revision: Number(inventory.revision) + 1,
        now: clock(),
        changes: [],
      };
      const result = await work(ctx);
      if (ctx.changes.length === 0) return { result, revision: null };
      const bumped = await repo.bumpRevision(trx, inventoryId);
      if (bumped !== ctx.revision) throw new Error('inventory revision moved during a write');
      await repo.insertChanges(trx, inventoryId, bumped, ctx.now, ctx.changes);
      return { result, revision: bumped };
    });
    if (revision !== null) {
      void bus.publishAfterCommit({ type: 'inventoryUpdated', inventoryId, revision });
    }
    return result;
  };
}
