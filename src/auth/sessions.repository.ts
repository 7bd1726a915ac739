import type { Executor } from '#src/db/executor.js';
import { Prepared } from '#src/db/prepared.js';
import { deleteRows } from '#src/db/rows.js';
import type { SessionsTable } from '#src/db/types.js';

export type SessionRow = SessionsTable;

export async function insertSession(db: Executor, row: SessionRow): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

// every authenticated request whose session is not cached, and every socket connect
const sessionById = new Prepared<SessionRow>('select * from "sessions" where "id" = ?');

export function findSession(db: Executor, id: string): Promise<SessionRow | undefined> {
  return sessionById.first(db, [id]);
}

export function listSessions(db: Executor, userId: string): Promise<SessionRow[]> {
  return db
    .selectFrom('sessions')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('last_used_at', 'desc')
    .orderBy('id')
    .execute();
}

export async function touchSession(
  db: Executor,
  id: string,
  now: number,
  address: string | null,
): Promise<void> {
  const set = address === null ? { last_used_at: now } : { last_used_at: now, address };
  await db.updateTable('sessions').set(set).where('id', '=', id).execute();
}

/** Records a use of many sessions at once (no address): one statement per 500 ids. */
export async function touchSessions(db: Executor, ids: string[], now: number): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    const slice = ids.slice(i, i + 500);
    await db.updateTable('sessions').set({ last_used_at: now }).where('id', 'in', slice).execute();
  }
}

/** Ends one session: its row and its refresh tokens. False when it did not exist. */
export async function deleteSession(db: Executor, id: string): Promise<boolean> {
  await db.deleteFrom('refresh_tokens').where('family_id', '=', id).execute();
  return (await deleteRows(db, 'sessions', { id })) > 0;
}

/** Ends every session of the user but `exceptId`: their rows and their refresh tokens. */
export async function deleteUserSessions(
  db: Executor,
  userId: string,
  exceptId: string | null,
): Promise<void> {
  let tokens = db.deleteFrom('refresh_tokens').where('user_id', '=', userId);
  let sessions = db.deleteFrom('sessions').where('user_id', '=', userId);
  if (exceptId !== null) {
    tokens = tokens.where('family_id', '<>', exceptId);
    sessions = sessions.where('id', '<>', exceptId);
  }
  await tokens.execute();
  await sessions.execute();
}

/** Sessions whose last refresh token expired long ago (nothing can revive them). */
export async function deleteIdleSessions(db: Executor, usedBefore: number): Promise<void> {
  await db.deleteFrom('sessions').where('last_used_at', '<', usedBefore).execute();
}
