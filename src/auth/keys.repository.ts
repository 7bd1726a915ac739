import type { Executor } from '#src/db/executor.js';
import { insertUnlessTaken } from '#src/db/rows.js';
import type { JwtKeysTable } from '#src/db/types.js';

/** Every key, the newest generation first. */
export function listKeys(db: Executor): Promise<JwtKeysTable[]> {
  return db.selectFrom('jwt_keys').selectAll().orderBy('generation', 'desc').execute();
}

/** Inserts a key unless its generation is taken (another instance got there first). */
export async function insertKey(db: Executor, row: JwtKeysTable): Promise<void> {
  await insertUnlessTaken(db, 'jwt_keys', row, 'generation');
}

/** Every key but `kid` that still signs stops verifying at `retiredAt`. */
export async function retireOthers(db: Executor, kid: string, retiredAt: number): Promise<void> {
  await db
    .updateTable('jwt_keys')
    .set({ retired_at: retiredAt })
    .where('kid', '<>', kid)
    .where('retired_at', 'is', null)
    .execute();
}

/** Deletes the keys that stopped verifying by `now`; how many. */
export async function deleteRetired(db: Executor, now: number): Promise<number> {
  const result = await db
    .deleteFrom('jwt_keys')
    .where('retired_at', 'is not', null)
    .where('retired_at', '<=', now)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
