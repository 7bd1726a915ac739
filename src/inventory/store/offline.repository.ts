import { deleteOlderThan } from '#src/db/rows.js';
import { bulkInsert, Prepared, ROWS_PER_INSERT } from '#src/db/prepared.js';
import { isPostgres, type Executor } from '#src/db/executor.js';

/** The operation ids an inventory has taken (sync_ops), with their first results. */

/** What is kept of an operation's first result (offline/offline.schemas.ts: FirstResult). */
interface KeptResult {
  id: string;
  message?: string;
}

const takenAmong = new Prepared<{ op_id: string; result: string }>(
  'select "op_id", "result" from "sync_ops" where "inventory_id" = ? and "op_id" = any(?::text[])',
  { name: 'larder-sync-ops-taken' },
);

export async function findResults<R extends KeptResult>(
  db: Executor,
  inventoryId: string,
  opIds: string[],
): Promise<Map<string, R>> {
  const out = new Map<string, R>();
  const unique = [...new Set(opIds)];
  if (isPostgres(db)) {
    // one statement for the whole batch, its ids as one array parameter
    for (const row of await takenAmong.all(db, [inventoryId, unique])) {
      out.set(row.op_id, JSON.parse(row.result) as R);
    }
    return out;
  }
  for (let i = 0; i < unique.length; i += ROWS_PER_INSERT) {
    const rows = await db
      .selectFrom('sync_ops')
      .select(['op_id', 'result'])
      .where('inventory_id', '=', inventoryId)
      .where('op_id', 'in', unique.slice(i, i + ROWS_PER_INSERT))
      .execute();
    for (const row of rows) out.set(row.op_id, JSON.parse(row.result) as R);
  }
  return out;
}

const insertRows = bulkInsert(
  'sync_ops',
  ['inventory_id', 'op_id', 'result', 'recorded_at'],
  ['text', 'text', 'text', 'bigint'],
);

/**
 * The longest message kept with a result: a rejection's message may quote what the op sent (a
 * payload's unknown field name, up to the payload's 64 KB), and each kept row stays small.
 */
const MAX_KEPT_MESSAGE = 300;

const kept = <R extends KeptResult>(r: R): R =>
  r.message !== undefined && r.message.length > MAX_KEPT_MESSAGE
    ? { ...r, message: `${r.message.slice(0, MAX_KEPT_MESSAGE - 1)}…` }
    : r;

export async function insertResults<R extends KeptResult>(
  db: Executor,
  inventoryId: string,
  results: R[],
  now: number,
  pace?: () => Promise<void>,
): Promise<void> {
  const rows = results.map((r) => [inventoryId, r.id, JSON.stringify(kept(r)), now]);
  await insertRows(db, rows, pace);
}

/** Forgets operation ids older than `cutoff` (with the change history). */
export function pruneResults(db: Executor, cutoff: number): Promise<number> {
  return deleteOlderThan(db, 'sync_ops', 'recorded_at', cutoff);
}
