import type { Selectable } from 'kysely';
import type { Executor } from './executor.js';
import type { DB } from './types.js';

/** The outbox tables: one row per delivery, due at `next_attempt_at` until `delivered_at` is set. */
export type OutboxTable = 'push_deliveries' | 'webhook_deliveries';

/**
 * Takes an outbox row's attempt lease until `until`: true for the one caller that moved
 * `next_attempt_at` from the `seen` value it read. Instances that read the same due row race
 * on this update, and only one of them sends it; the others find the row moved and skip it.
 */
export async function claimLease(
  db: Executor,
  table: OutboxTable,
  id: string,
  seen: number,
  until: number,
): Promise<boolean> {
  const result = await db
    .updateTable(table)
    .set({ next_attempt_at: until })
    .where('id', '=', id)
    .where('next_attempt_at', '=', seen)
    .where('delivered_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The outbox rows due at `now`, not delivered and with attempts left: the oldest due first. */
export function dueRows<T extends OutboxTable>(
  db: Executor,
  table: T,
  now: number,
  maxAttempts: number,
  limit: number,
) {
  return db
    .selectFrom(table as OutboxTable)
    .selectAll()
    .where('delivered_at', 'is', null)
    .where('attempts', '<', maxAttempts)
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .limit(limit)
    .execute() as Promise<Selectable<DB[T]>[]>;
}

/** What an attempt leaves on its outbox row. */
export interface AttemptRecord {
  attempts: number;
  next_attempt_at: number;
  delivered_at: number | null;
  last_error: string | null;
}

export async function recordAttempt(
  db: Executor,
  table: OutboxTable,
  id: string,
  fields: AttemptRecord,
): Promise<void> {
  await db.updateTable(table).set(fields).where('id', '=', id).execute();
}
