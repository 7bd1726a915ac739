import type { Executor } from '#src/db/executor.js';

/** The feed key of each inventory's expiry calendar (as its SHA-256) and what the feed shows. */

/** Sets the inventory's one key, replacing (and so revoking) the one before. */
export async function replaceKey(
  db: Executor,
  inventoryId: string,
  keyHash: string,
  now: number,
): Promise<void> {
  await db
    .insertInto('calendar_keys')
    .values({ inventory_id: inventoryId, key_hash: keyHash, created_at: now })
    .onConflict((oc) =>
      oc.column('inventory_id').doUpdateSet({ key_hash: keyHash, created_at: now }),
    )
    .execute();
}

/** The key row whose hash is `keyHash`, with its inventory's name. */
export function findByKeyHash(db: Executor, keyHash: string) {
  return db
    .selectFrom('calendar_keys')
    .innerJoin('inventories', 'inventories.id', 'calendar_keys.inventory_id')
    .select(['calendar_keys.inventory_id', 'calendar_keys.key_hash', 'inventories.name'])
    .where('calendar_keys.key_hash', '=', keyHash)
    .executeTakeFirst();
}
