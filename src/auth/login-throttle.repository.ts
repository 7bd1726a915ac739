import { isPostgres, type Executor } from '#src/db/executor.js';
import type { LoginThrottleTable } from '#src/db/types.js';

export type ThrottleRow = LoginThrottleTable;

/**
 * The counters of `keys`, created when missing and locked until the transaction ends (PostgreSQL;
 * SQLite runs one transaction at a time). Keys are taken in sorted order: no deadlock.
 */
export async function lockCounters(db: Executor, keys: string[]): Promise<ThrottleRow[]> {
  const sorted = [...keys].sort();
  await db
    .insertInto('login_throttle')
    .values(sorted.map((key) => ({ key, failures: 0, window_ends_at: 0, next_attempt_at: 0 })))
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const query = db
    .selectFrom('login_throttle')
    .selectAll()
    .where('key', 'in', sorted)
    .orderBy('key');
  return (isPostgres(db) ? query.forUpdate() : query).execute();
}

export async function saveCounter(db: Executor, row: ThrottleRow): Promise<void> {
  await db
    .updateTable('login_throttle')
    .set({
      failures: row.failures,
      window_ends_at: row.window_ends_at,
      next_attempt_at: row.next_attempt_at,
    })
    .where('key', '=', row.key)
    .execute();
}

/** Gives back one reserved attempt (a sign-in that succeeded or never reached bcrypt). */
export async function releaseOne(db: Executor, key: string): Promise<void> {
  await db
    .updateTable('login_throttle')
    .set((eb) => ({ failures: eb('failures', '-', 1) }))
    .where('key', '=', key)
    .where('failures', '>', 0)
    .execute();
}

export async function deleteCounter(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('login_throttle').where('key', '=', key).execute();
}

/** Deletes `key` and every key that starts with `prefix` (no LIKE: `_` is a wildcard there). */
export async function deleteCounters(db: Executor, key: string, prefix: string): Promise<number> {
  const upper = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  const result = await db
    .deleteFrom('login_throttle')
    .where((eb) =>
      eb.or([eb('key', '=', key), eb.and([eb('key', '>=', prefix), eb('key', '<', upper)])]),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteExpiredCounters(db: Executor, now: number): Promise<void> {
  await db
    .deleteFrom('login_throttle')
    .where('window_ends_at', '<=', now)
    .where('next_attempt_at', '<=', now)
    .execute();
}
