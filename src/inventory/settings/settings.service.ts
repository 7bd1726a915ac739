import type { Kysely } from 'kysely';
import type { DB } from '#src/db/types.js';
import { inventoryOf, type Caller } from '#src/inventory/store/inventory.caller.js';
import { toSettings } from '#src/inventory/store/inventory.mapper.js';
import type { Mutate } from '#src/inventory/store/inventory.mutate.js';
import type { Settings } from '#src/inventory/inventory.schemas.js';
import * as repo from '#src/inventory/store/settings.repository.js';

/** Settings: string key/value pairs shared by the inventory's members. */
export function createSettingsService(deps: { db: Kysely<DB>; mutate: Mutate }) {
  const { db, mutate } = deps;
  return {
    async get(caller: Caller): Promise<Settings> {
      return toSettings(await repo.listSettings(db, inventoryOf(caller)));
    },

    /** Merges: keys sent are set, keys not sent stay. Returns every setting. */
    merge(caller: Caller, input: Settings): Promise<Settings> {
      return mutate(inventoryOf(caller), async (ctx) => {
        const current = toSettings(await repo.listSettings(ctx.trx, ctx.inventoryId));
        const changed = Object.entries(input).filter(([key, value]) => current[key] !== value);
        await repo.upsertSettings(ctx.trx, ctx.inventoryId, ctx.revision, changed);
        for (const [key, value] of changed) {
          current[key] = value;
          ctx.changes.push({ entity: 'setting', entityId: key, op: 'upsert' });
        }
        return current;
      });
    },

    /** Idempotent. */
    remove(caller: Caller, key: string): Promise<void> {
      return mutate(inventoryOf(caller), async (ctx) => {
        if ((await repo.deleteSettings(ctx.trx, ctx.inventoryId, [key])) > 0) {
          ctx.changes.push({ entity: 'setting', entityId: key, op: 'delete' });
        }
      });
    },
  };
}

export type SettingsService = ReturnType<typeof createSettingsService>;
