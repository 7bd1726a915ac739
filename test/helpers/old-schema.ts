import bcrypt from 'bcrypt';
import type { Kysely } from 'kysely';

/**
 * A household as an older release stored it, written straight into a database migrated only that
 * far: inventory `inv-1` ("Home") and its member `oma` (password `oma-password`, id `user-1`).
 * Only columns every release has are written.
 */
export async function seedOldHousehold(
  // the schema of an older release: no table types
  db: Kysely<any>,
  options: { revision: number; at: number },
): Promise<void> {
  await db
    .insertInto('inventories')
    .values({
      id: 'inv-1',
      name: 'Home',
      revision: options.revision,
      history_floor: 0,
      created_at: options.at,
    })
    .execute();
  await db
    .insertInto('users')
    .values({
      id: 'user-1',
      username: 'oma',
      username_key: 'oma',
      password_hash: await bcrypt.hash('oma-password', 4),
      is_admin: 0,
      inventory_id: 'inv-1',
      token_version: 0,
      created_at: options.at,
    })
    .execute();
}
