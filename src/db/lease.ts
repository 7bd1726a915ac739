import type { Executor } from './executor.js';

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
