import { Prepared, ROWS_PER_INSERT, bulkInsert } from '#src/db/prepared.js';
import { isPostgres, type Executor } from '#src/db/executor.js';
import type { SyncStatements } from '#src/db/statement-cache.js';
import type { ItemsStateTable, ItemsTable } from '#src/db/types.js';

/**
 * The items table. The hot queries are written as SQL once (db/prepared.ts): a PATCH or a page
 * of a snapshot costs the statement's execution, not Kysely's query building.
 */

const COLUMNS = [
  'inventory_id',
  'id',
  'name',
  'category_id',
  'location_id',
  'quantity',
  'unit',
  'unit_price',
  'kcal_per_kg',
  'expiry_date',
  'notes',
  'last_updated',
  'revision',
] as const satisfies readonly (keyof ItemsTable)[];
const SELECT = `select ${COLUMNS.map((c) => `"${c}"`).join(', ')} from "items"`;

/** Rows per page of a long read: a page is a few milliseconds of the event loop. */
const ITEMS_PAGE = 1000;

// `+"revision"` keeps SQLite on the primary key (ordered by id) instead of the revision index
// plus a sort: a page must not cost a scan of everything changed since `since`.
const page = new Prepared<ItemsTable>(
  `${SELECT} where "inventory_id" = ? and "id" > ? and +"revision" > ? order by "id" limit ${ITEMS_PAGE}`,
);
const changedSince = new Prepared<ItemsTable>(
  `${SELECT} where "inventory_id" = ? and "revision" > ? order by "id"`,
);
const countChangedSince = new Prepared<{ n: number | string }>(
  'select count(*) as "n" from "items" where "inventory_id" = ? and "revision" > ?',
);

/**
 * The items changed after `sinceRevision` (all of them by default), ordered by id. Large reads
 * go page by page on the primary key, awaiting `pace` between pages (inside the caller's
 * transaction, so the pages are one consistent read); a small delta is one query on the
 * revision index.
 */
export async function listItems(
  db: Executor,
  inventoryId: string,
  sinceRevision = -1,
  pace?: () => Promise<void>,
): Promise<ItemsTable[]> {
  if (sinceRevision > 0) {
    const n = Number((await countChangedSince.first(db, [inventoryId, sinceRevision]))?.n ?? 0);
    if (n <= ITEMS_PAGE) return changedSince.all(db, [inventoryId, sinceRevision]);
  }
  const out: ItemsTable[] = [];
  let after = '';
  for (;;) {
    const rows = await page.all(db, [inventoryId, after, sinceRevision]);
    for (const row of rows) out.push(row);
    if (rows.length < ITEMS_PAGE) return out;
    after = rows[rows.length - 1]!.id;
    if (pace) await pace();
  }
}

const findOne = new Prepared<ItemsTable>(`${SELECT} where "inventory_id" = ? and "id" = ?`);

export function findItem(db: Executor, inventoryId: string, id: string) {
  return findOne.first(db, [inventoryId, id]);
}

/** The columns the one item writer (items.writer.ts) reads and writes: the row and its merge state. */
const STATE_COLUMNS = [
  ...COLUMNS,
  'merge_state',
] as const satisfies readonly (keyof ItemsStateTable)[];
const STATE_SELECT = `select ${STATE_COLUMNS.map((c) => `"${c}"`).join(', ')} from "items"`;
const findOneState = new Prepared<ItemsStateTable>(
  `${STATE_SELECT} where "inventory_id" = ? and "id" = ?`,
);

/** The rows (with merge state) of the items among `ids` that exist. */
export async function findItemStates(
  db: Executor,
  inventoryId: string,
  ids: string[],
): Promise<ItemsStateTable[]> {
  if (ids.length === 1) {
    const row = await findOneState.first(db, [inventoryId, ids[0]]);
    return row ? [row] : [];
  }
  const out: ItemsStateTable[] = [];
  for (let i = 0; i < ids.length; i += ROWS_PER_INSERT) {
    const rows = await db
      .selectFrom('items')
      .select(STATE_COLUMNS)
      .where('inventory_id', '=', inventoryId)
      .where('id', 'in', ids.slice(i, i + ROWS_PER_INSERT))
      .execute();
    out.push(...rows);
  }
  return out;
}

/** SQLite, inside a synchronous write (Database.writeSync): the item's row with its merge state. */
export function findItemStateNow(sql: SyncStatements, inventoryId: string, id: string) {
  return findOneState.allNow(sql, [inventoryId, id])[0];
}

/** The columns a write of one item sets, with their PostgreSQL types (items table, migrations). */
export const ITEM_FIELD_TYPES = {
  name: 'text',
  category_id: 'integer',
  location_id: 'integer',
  quantity: 'double precision',
  unit: 'text',
  unit_price: 'double precision',
  kcal_per_kg: 'integer',
  expiry_date: 'text',
  notes: 'text',
  last_updated: 'bigint',
  merge_state: 'text',
} as const satisfies Partial<Record<keyof ItemsStateTable, string>>;

const values = (row: ItemsStateTable) => STATE_COLUMNS.map((c) => row[c]);
const FIELDS = STATE_COLUMNS.filter((c) => c !== 'inventory_id' && c !== 'id');
/** Each column's PostgreSQL type, for the array parameters of the statements below. */
const PG_TYPES: Record<(typeof STATE_COLUMNS)[number], string> = {
  inventory_id: 'text',
  id: 'text',
  revision: 'bigint',
  ...ITEM_FIELD_TYPES,
};
const updateOne = new Prepared(
  `update "items" set ${FIELDS.map((c) => `"${c}" = ?`).join(', ')} where "inventory_id" = ? and "id" = ?`,
);
// PostgreSQL: every row in one statement, one array parameter per column
const UPDATED = ['id', ...FIELDS] as const;
const updateMany = new Prepared(
  `update "items" as "i" set ${FIELDS.map((c) => `"${c}" = "u"."${c}"`).join(', ')} from unnest(${UPDATED.map((c) => `?::${PG_TYPES[c]}[]`).join(', ')}) as "u"(${UPDATED.map((c) => `"${c}"`).join(', ')}) where "i"."inventory_id" = ? and "i"."id" = "u"."id"`,
  { name: 'larder-items-update-many' },
);

/**
 * Writes the rows over the stored items of one inventory (the caller read them in this
 * transaction). On PostgreSQL one statement per ITEMS_PAGE rows: a statement per row was a round
 * trip per item with the inventory's lock held (60 of a 60-op batch's 70 on 30 items).
 */
export async function updateItems(
  db: Executor,
  inventoryId: string,
  rows: ItemsStateTable[],
  pace?: () => Promise<void>,
): Promise<void> {
  if (!isPostgres(db)) {
    for (const row of rows) {
      await updateOne.run(db, [...FIELDS.map((c) => row[c]), row.inventory_id, row.id]);
    }
    return;
  }
  for (let i = 0; i < rows.length; i += ITEMS_PAGE) {
    const slice = rows.slice(i, i + ITEMS_PAGE);
    await updateMany.run(db, [...UPDATED.map((c) => slice.map((row) => row[c])), inventoryId]);
    if (pace && i + ITEMS_PAGE < rows.length) await pace();
  }
}

/** SQLite, inside a synchronous write: writes `row` over its stored item. */
export function updateItemNow(sql: SyncStatements, row: ItemsStateTable): void {
  updateOne.runNow(sql, [...FIELDS.map((c) => row[c]), row.inventory_id, row.id]);
}

const setState = new Prepared(
  'update "items" set "merge_state" = ? where "inventory_id" = ? and "id" = ?',
);

/** Sets only the merge state (what clients read does not change). */
export async function setMergeState(db: Executor, inventoryId: string, id: string, state: string) {
  await setState.run(db, [state, inventoryId, id]);
}

// PostgreSQL: one INSERT … FROM unnest per 2,000 rows (without the types: 200-row statements,
// then the rest one row per statement)
const insertRows = bulkInsert(
  'items',
  STATE_COLUMNS,
  STATE_COLUMNS.map((c) => PG_TYPES[c]),
);

export async function insertItems(
  db: Executor,
  rows: ItemsStateTable[],
  pace?: () => Promise<void>,
): Promise<void> {
  await insertRows(db, rows.map(values), pace);
}

const deleteWhere = (n: number) =>
  new Prepared(
    `delete from "items" where "inventory_id" = ? and "id" in (${Array(n).fill('?').join(', ')})`,
  );
const deleteMany = deleteWhere(ROWS_PER_INSERT);
const deleteOne = deleteWhere(1);

/** Deletes the items; two statement shapes (ROWS_PER_INSERT ids, then one by one). */
export async function deleteItems(
  db: Executor,
  inventoryId: string,
  ids: string[],
  pace?: () => Promise<void>,
) {
  let deleted = 0;
  let i = 0;
  for (; i + ROWS_PER_INSERT <= ids.length; i += ROWS_PER_INSERT) {
    deleted += await deleteMany.run(db, [inventoryId, ...ids.slice(i, i + ROWS_PER_INSERT)]);
    if (pace) await pace();
  }
  for (; i < ids.length; i++) deleted += await deleteOne.run(db, [inventoryId, ids[i]]);
  return deleted;
}

/**
 * Items with an expiry date, up to `horizon` when given (expired ones included), soonest first
 * (the expiry list, the digest, the calendar feed). Joined with categories and locations because
 * their names are what the list shows: one query for all three.
 */
export function itemsWithExpiry(db: Executor, inventoryId: string, horizon?: string) {
  let query = db
    .selectFrom('items')
    .leftJoin('categories', (join) =>
      join
        .onRef('categories.inventory_id', '=', 'items.inventory_id')
        .onRef('categories.id', '=', 'items.category_id'),
    )
    .leftJoin('locations', (join) =>
      join
        .onRef('locations.inventory_id', '=', 'items.inventory_id')
        .onRef('locations.id', '=', 'items.location_id'),
    )
    .select([
      'items.id',
      'items.name',
      'items.quantity',
      'items.unit',
      'items.expiry_date',
      'categories.name as category',
      'locations.name as location',
    ])
    .where('items.inventory_id', '=', inventoryId)
    .where('items.expiry_date', 'is not', null);
  if (horizon !== undefined) query = query.where('items.expiry_date', '<=', horizon);
  return query.orderBy('items.expiry_date').orderBy('items.name').orderBy('items.id').execute();
}

// every write that adds items asks (the per-inventory cap): prepared once
const countItems = new Prepared<{ n: number | string }>(
  'select count(*) as "n" from "items" where "inventory_id" = ?',
);

export async function itemCount(db: Executor, inventoryId: string): Promise<number> {
  return Number((await countItems.first(db, [inventoryId]))?.n ?? 0);
}

/** How many items refer to the category or location. */
export async function countItemsUsing(
  db: Executor,
  inventoryId: string,
  column: 'category_id' | 'location_id',
  id: number,
) {
  const row = await db
    .selectFrom('items')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('inventory_id', '=', inventoryId)
    .where(column, '=', id)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
