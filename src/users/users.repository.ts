import { sql } from 'kysely';
import { isPostgres, type Executor } from '#src/db/executor.js';
import { rowExists } from '#src/db/rows.js';
import { Prepared } from '#src/db/prepared.js';
import type { UsersTable } from '#src/db/types.js';

export type UserRow = UsersTable;

// every authenticated request whose user is not cached, and every socket connect: prepared once
const userById = new Prepared<UserRow>('select * from "users" where "id" = ?');

export function findUserById(db: Executor, id: string): Promise<UserRow | undefined> {
  return userById.first(db, [id]);
}

/** The user row, locked until the transaction ends (on PostgreSQL): changes to one user take turns. */
export function lockUser(db: Executor, id: string): Promise<UserRow | undefined> {
  const query = db.selectFrom('users').selectAll().where('id', '=', id);
  return (isPostgres(db) ? query.forUpdate() : query).executeTakeFirst();
}

export function findUserByUsername(db: Executor, username: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('username_key', '=', username.toLowerCase())
    .executeTakeFirst();
}

export function listUsers(db: Executor): Promise<(UserRow & { oidc_linked: number })[]> {
  return db
    .selectFrom('users')
    .selectAll('users')
    .select(oidcLinked.as('oidc_linked'))
    .orderBy('created_at')
    .orderBy('username_key')
    .execute();
}

/** Whether the user is linked to the identity provider (the oidc_links table, src/auth/oidc). */
export function isOidcLinked(db: Executor, id: string): Promise<boolean> {
  return rowExists(db, 'oidc_links', { user_id: id });
}

const oidcLinked = sql<number>`case when exists (select 1 from "oidc_links" where "oidc_links"."user_id" = "users"."id") then 1 else 0 end`;

export async function insertUser(db: Executor, row: UserRow): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function updatePassword(
  db: Executor,
  id: string,
  passwordHash: string,
): Promise<void> {
  await db
    .updateTable('users')
    .set((eb) => ({ password_hash: passwordHash, token_version: eb('token_version', '+', 1) }))
    .where('id', '=', id)
    .execute();
}

/** Which inventory the user belongs to: the only change of it after the user was created. */
export async function setUserInventory(
  db: Executor,
  id: string,
  inventoryId: string,
): Promise<void> {
  await db.updateTable('users').set({ inventory_id: inventoryId }).where('id', '=', id).execute();
}

export async function deleteUser(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('users').where('id', '=', id).execute();
}

/**
 * The ids of every admin, locked until the transaction ends (PostgreSQL; SQLite runs one
 * transaction at a time): two admins demoting or deleting each other at once cannot both win.
 */
export async function lockAdmins(db: Executor): Promise<string[]> {
  const query = db.selectFrom('users').select('id').where('is_admin', '=', 1).orderBy('id');
  return (await (isPostgres(db) ? query.forUpdate() : query).execute()).map((row) => row.id);
}

/** Sets the admin role; `endSessions` also bumps the token version, so no token works any more. */
export async function setAdmin(
  db: Executor,
  id: string,
  isAdmin: boolean,
  endSessions = false,
): Promise<void> {
  await db
    .updateTable('users')
    .set((eb) =>
      endSessions
        ? { is_admin: isAdmin ? 1 : 0, token_version: eb('token_version', '+', 1) }
        : { is_admin: isAdmin ? 1 : 0 },
    )
    .where('id', '=', id)
    .execute();
}
