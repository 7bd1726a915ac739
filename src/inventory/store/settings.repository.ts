import type { Executor } from '#src/db/executor.js';
import type { SettingsTable } from '#src/db/types.js';
import { chunks } from './inventory.repository.js';

export function listSettings(db: Executor, inventoryId: string, since = -1) {
  return db
    .selectFrom('settings')
    .selectAll()
    .where('inventory_id', '=', inventoryId)
    .where('revision', '>', since)
    .orderBy('key')
    .execute();
}

/** Sets each `[key, value]`, marking the rows with the write's revision. */
export async function upsertSettings(
  db: Executor,
  inventoryId: string,
  revision: number,
  entries: [string, string][],
): Promise<void> {
  const rows: SettingsTable[] = entries.map(([key, value]) => ({
    inventory_id: inventoryId,
    key,
    value,
    revision,
  }));
  for (const part of chunks(rows)) {
    await db
      .insertInto('settings')
      .values(part)
      .onConflict((oc) =>
        oc.columns(['inventory_id', 'key']).doUpdateSet((eb) => ({
          value: eb.ref('excluded.value'),
          revision: eb.ref('excluded.revision'),
        })),
      )
      .execute();
  }
}

export async function deleteSettings(db: Executor, inventoryId: string, keys: string[]) {
  let deleted = 0;
  for (const part of chunks(keys)) {
    const result = await db
      .deleteFrom('settings')
      .where('inventory_id', '=', inventoryId)
      .where('key', 'in', part)
      .executeTakeFirst();
    deleted += Number(result.numDeletedRows);
  }
  return deleted;
}
