import {
  PostgresAdapter,
  sql,
  type ColumnDefinitionBuilder,
  type CreateTableBuilder,
  type Kysely,
} from 'kysely';

// Small helpers for migrations. Migrations never import application code.
//
// What a released migration sends must never change (test/db/schema-frozen.test.ts holds every
// statement and the schema after each migration to committed snapshots): a change here that
// changes one byte of a released migration's SQL fails that test.

/** Migrations run against whatever schema the database has: no table types. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyDb = Kysely<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type TableBuilder = CreateTableBuilder<any, any>;

export function isPostgres(db: AnyDb): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** Column type of an auto-incrementing integer primary key. */
export function autoIdType(db: AnyDb): 'bigserial' | 'integer' {
  return isPostgres(db) ? 'bigserial' : 'integer';
}

/** A column of an inventory's rows: it goes with the inventory. */
export const INVENTORY_ID = 'text not null references inventories.id on delete cascade';
/** A column of a user's rows: it goes with the user. */
export const USER_ID = 'text not null references users.id on delete cascade';

/**
 * One column as SQL-like words: a type (`text`, `integer`, `bigint`, `double precision`, or
 * `serial`: bigserial on PostgreSQL, integer … autoincrement on SQLite), then any of `primary key`,
 * `not null`, `unique`, `default 0` / `default ''`, `references table.column [on delete cascade |
 * on delete set null]`. Kysely writes the SQL in its own order of these, whatever order they are
 * given in. Anything else throws.
 */
export type ColumnSpec = string;

const TYPES = ['double precision', 'text', 'integer', 'bigint', 'serial'] as const;
type Modifier = (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;
const MODIFIERS: [RegExp, (m: RegExpExecArray) => Modifier][] = [
  [/^primary key\b/, () => (c) => c.primaryKey()],
  [/^not null\b/, () => (c) => c.notNull()],
  [/^unique\b/, () => (c) => c.unique()],
  [/^default (?:'([^']*)'|(-?\d+))(?!\S)/, (m) => (c) => c.defaultTo(m[1] ?? Number(m[2]))],
  [
    /^references (\w+\.\w+)(?: on delete (cascade|set null))?(?!\S)/,
    (m) => (c) => {
      const ref = c.references(m[1]!);
      return m[2] ? ref.onDelete(m[2] as 'cascade' | 'set null') : ref;
    },
  ],
];

function addColumn(db: AnyDb, table: TableBuilder, name: string, spec: ColumnSpec): TableBuilder {
  const type = TYPES.find((t) => spec === t || spec.startsWith(`${t} `));
  if (!type) throw new Error(`migration column ${name}: no type in "${spec}"`);
  const modifiers: Modifier[] = [];
  if (type === 'serial' && !isPostgres(db)) modifiers.push((c) => c.autoIncrement());
  let rest = spec.slice(type.length).trim();
  while (rest) {
    const found = MODIFIERS.map(([re, make]) => [re.exec(rest), make] as const).find(([m]) => m);
    if (!found) throw new Error(`migration column ${name}: "${rest}" not understood in "${spec}"`);
    const [match, make] = found;
    modifiers.push(make(match!));
    rest = rest.slice(match![0].length).trim();
  }
  const dataType = type === 'serial' ? autoIdType(db) : type;
  return table.addColumn(name, dataType, (c) => modifiers.reduce((b, m) => m(b), c));
}

const list = (names: string): string[] => names.split(',').map((n) => n.trim());
type Constraint = (table: TableBuilder, name: string, m: RegExpExecArray) => TableBuilder;
const CONSTRAINTS: [RegExp, Constraint][] = [
  [/^primary key \(([\w, ]+)\)$/, (t, name, m) => t.addPrimaryKeyConstraint(name, list(m[1]!))],
  [/^unique \(([\w, ]+)\)$/, (t, name, m) => t.addUniqueConstraint(name, list(m[1]!))],
  [
    /^foreign key \(([\w, ]+)\) references (\w+) \(([\w, ]+)\)$/,
    (t, name, m) => t.addForeignKeyConstraint(name, list(m[1]!), m[2]!, list(m[3]!)),
  ],
];
const INDEX = /^(unique )?index \(([\w, ]+)\)(?: where (\w+) is null)?$/;

/**
 * A table as one declaration, its entries in the order of `create table` and the statements after
 * it: each column (`name: ColumnSpec`), each named constraint (`name: 'primary key (a, b)'`,
 * `'unique (a, b)'`, `'foreign key (a, b) references table (c, d)'`), and each index, created
 * after the table in the order given (`name: 'index (a, b)'`, `'unique index (a, b)'`,
 * `'index (a, b) where c is null'`).
 */
export async function createTable(
  db: AnyDb,
  name: string,
  entries: Record<string, string>,
): Promise<void> {
  let table = db.schema.createTable(name);
  const indexes: [string, RegExpExecArray][] = [];
  for (const [entry, spec] of Object.entries(entries)) {
    const index = INDEX.exec(spec);
    const constraint = CONSTRAINTS.map(([re, add]) => [re.exec(spec), add] as const).find(
      ([m]) => m,
    );
    if (index) indexes.push([entry, index]);
    else if (constraint) table = constraint[1](table, entry, constraint[0]!);
    else table = addColumn(db, table, entry, spec);
  }
  await table.execute();
  for (const [index, [, unique, columns, whereNull]] of indexes) {
    let create = db.schema.createIndex(index).on(name).columns(list(columns!));
    if (unique) create = create.unique();
    if (whereNull) create = create.where(sql.ref(whereNull), 'is', null);
    await create.execute();
  }
}

/** Drops the tables, in the order given. */
export async function dropTables(db: AnyDb, ...tables: string[]): Promise<void> {
  for (const table of tables) await db.schema.dropTable(table).execute();
}
