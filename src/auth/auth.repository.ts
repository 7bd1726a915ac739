import type { Executor } from '#src/db/executor.js';
import { findRow } from '#src/db/rows.js';
import type { RefreshTokensTable } from '#src/db/types.js';

export function findRefreshToken(
  db: Executor,
  tokenHash: string,
): Promise<RefreshTokensTable | undefined> {
  return findRow(db, 'refresh_tokens', { token_hash: tokenHash });
}

export async function insertRefreshToken(db: Executor, row: RefreshTokensTable): Promise<void> {
  await db.insertInto('refresh_tokens').values(row).execute();
}

/** Marks a token used; false when it was already used (a concurrent or replayed refresh). */
export async function markRefreshTokenUsed(
  db: Executor,
  tokenHash: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('refresh_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteRefreshFamily(db: Executor, familyId: string): Promise<void> {
  await db.deleteFrom('refresh_tokens').where('family_id', '=', familyId).execute();
}

export async function deleteExpiredRefreshTokens(db: Executor, now: number): Promise<void> {
  await db.deleteFrom('refresh_tokens').where('expires_at', '<', now).execute();
}
