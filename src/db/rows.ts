import type { Kysely, Selectable } from 'kysely';
import type { Executor } from './executor.js';
import type { DB } from './types.js';

/** A table's row, and columns of it with their values (a key, or a filter) that pick rows out. */
export type Row<T extends keyof DB> = Selectable<DB[T]>;
export type RowKey<T extends keyof DB> = Partial<Row<T>>;

/**
 * The same database with its tables untyped: the queries below name their table by a type
 * parameter, which Kysely's column typing cannot follow. Their signatures carry the types.
 */
const untyped = (db: Executor) => db as unknown as Kysely<Record<string, Record<string, unknown>>>;
const nameOf = (table: keyof DB): string => table;

/**
 * `where column = value` for each column of the key (all of them). An empty key, or a column
 * given as undefined, is a caller's mistake that would pick every row: it throws instead.
 */
function whereKey<Q>(query: Q, key: object): Q {
  const columns = Object.entries(key);
  if (columns.length === 0 || columns.some(([, value]) => value === undefined)) {
    throw new Error(`a row key needs every column's value: ${Object.keys(key).join(', ')}`);
  }
  const where = (q: Q, [column, value]: [string, unknown]) =>
    (q as { where(c: string, op: '=', v: unknown): Q }).where(column, '=', value);
  return columns.reduce(where, query);
}

/** The row whose columns equal `key`, or undefined. */
export function findRow<T extends keyof DB>(
  db: Executor,
  table: T,
  key: RowKey<T>,
): Promise<Row<T> | undefined> {
  const query = whereKey(untyped(db).selectFrom(nameOf(table)).selectAll(), key);
  return query.executeTakeFirst() as Promise<Row<T> | undefined>;
}

/** The rows whose columns equal `key`, ordered by `orderBy` (each ascending). */
export function findRows<T extends keyof DB>(
  db: Executor,
  table: T,
  key: RowKey<T>,
  orderBy: (keyof Row<T> & string)[],
): Promise<Row<T>[]> {
  const query = whereKey(untyped(db).selectFrom(nameOf(table)).selectAll(), key);
  return orderBy.reduce((q, column) => q.orderBy(column), query).execute() as Promise<Row<T>[]>;
}

/** Whether a row's columns equal `key`. */
export async function rowExists<T extends keyof DB>(
  db: Executor,
  table: T,
  key: RowKey<T>,
): Promise<boolean> {
  const [first] = Object.keys(key);
  const query = whereKey(untyped(db).selectFrom(nameOf(table)).select(first!), key);
  return (await query.executeTakeFirst()) !== undefined;
}

/** Deletes the row whose columns equal `key` and returns it: only the first caller gets it. */
export function takeRow<T extends keyof DB>(
  db: Executor,
  table: T,
  key: RowKey<T>,
): Promise<Row<T> | undefined> {
  const query = whereKey(untyped(db).deleteFrom(nameOf(table)), key);
  return query.returningAll().executeTakeFirst() as Promise<Row<T> | undefined>;
}

/** Deletes the rows whose columns equal `key`; returns how many. */
export async function deleteRows<T extends keyof DB>(
  db: Executor,
  table: T,
  key: RowKey<T>,
): Promise<number> {
  const result = await whereKey(untyped(db).deleteFrom(nameOf(table)), key).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes the rows whose `column` is below `cutoff` (what is older than it); returns how many. */
export async function deleteOlderThan<T extends keyof DB>(
  db: Executor,
  table: T,
  column: keyof Row<T> & string,
  cutoff: number,
): Promise<number> {
  const at: string = column;
  const result = await untyped(db)
    .deleteFrom(nameOf(table))
    .where(at, '<', cutoff)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Inserts the row unless its `unique` column's value is taken (by another instance, first). */
export async function insertUnlessTaken<T extends keyof DB>(
  db: Executor,
  table: T,
  row: Row<T>,
  unique: keyof Row<T> & string,
): Promise<void> {
  await untyped(db)
    .insertInto(nameOf(table))
    .values(row)
    .onConflict((oc) => oc.column(unique).doNothing())
    .execute();
}
