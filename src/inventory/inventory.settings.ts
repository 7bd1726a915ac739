import {
  inventoryOf,
  toSettings,
  type Caller,
  type InventoryDeps,
  type Mutate,
} from './inventory.core.js';
import * as repo from './inventory.repository.js';
import type { Settings } from './inventory.schemas.js';

/** Settings: string key/value pairs shared by the inventory's members. */
export function createSettingsService(deps: InventoryDeps, mutate: Mutate) {
  const { db } = deps;
  return {
    async get(caller: Caller): Promise<Settings> {
      return toSettings(await repo.listSettings(db, inventoryOf(caller)));
    },

    /** Merges: keys sent are set, keys not sent stay. Returns every setting. */
    merge(caller: Caller, input: Settings): Promise<Settings> {
      return mutate(caller, async (ctx) => {
        const current = toSettings(await repo.listSettings(ctx.trx, ctx.inventoryId));
        const changed = Object.entries(input).filter(([key, value]) => current[key] !== value);
        await repo.upsertSettings(
          ctx.trx,
          changed.map(([key, value]) => ({
            inventory_id: ctx.inventoryId,
            key,
            value,
            revision: ctx.revision,
          })),
        );
        for (const [key, value] of changed) {
          current[key] = value;
          ctx.changes.push({ entity: 'setting', entityId: key, op: 'upsert' });
        }
        return current;
      });
    },

    /** Idempotent. */
    remove(caller: Caller, key: string): Promise<void> {
      return mutate(caller, async (ctx) => {
        if ((await repo.deleteSettings(ctx.trx, ctx.inventoryId, [key])) > 0) {
          ctx.changes.push({ entity: 'setting', entityId: key, op: 'delete' });
        }
      });
    },
  };
}

export type SettingsService = ReturnType<typeof createSettingsService>;
