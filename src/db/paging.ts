import { sql, type SelectQueryBuilder, type StringReference } from 'kysely';
import type { DB } from './types.js';

/**
 * Keyset paging, newest first, on a timestamp column with a sequence column to break its ties:
 * the newest `limit` rows of `rows()` before `before` (all of them when null) and, when that page
 * is full, the others sharing the oldest one's timestamp (those with a lower sequence), so that
 * paging on to `before=<the oldest timestamp>` skips none. `rows` gives a fresh query each time;
 * `normalize` turns a row's bigints (strings on PostgreSQL) into numbers; the two columns are read
 * back from a normalized row by their names (`messages.sent_at` as `sent_at`).
 */
export async function pageWithTies<TB extends keyof DB, O, R>(page: {
  rows: () => SelectQueryBuilder<DB, TB, O>;
  columns: readonly [at: StringReference<DB, TB>, seq: StringReference<DB, TB>];
  normalize: (row: O) => R;
  before: number | null;
  limit: number;
}): Promise<R[]> {
  const at = sql.ref(page.columns[0]);
  const seq = sql.ref(page.columns[1]);
  let query = page.rows();
  if (page.before !== null) query = query.where(sql<boolean>`${at} < ${page.before}`);
  const rows = (
    await query.orderBy(at, 'desc').orderBy(seq, 'desc').limit(page.limit).execute()
  ).map(page.normalize);
  const oldest = rows.at(-1);
  if (!oldest || rows.length < page.limit) return rows;
  const [oldestAt, oldestSeq] = page.columns.map((column) => valueOf(oldest, column));
  const ties = await page
    .rows()
    .where(sql<boolean>`${at} = ${oldestAt} and ${seq} < ${oldestSeq}`)
    .orderBy(seq, 'desc')
    .execute();
  return [...rows, ...ties.map(page.normalize)];
}

/** The number a normalized row holds for `column`, under the column's name without its table. */
function valueOf(row: unknown, column: string): number {
  return Number((row as Record<string, unknown>)[column.slice(column.lastIndexOf('.') + 1)]);
}
