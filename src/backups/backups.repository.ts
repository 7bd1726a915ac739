import { sql, type Kysely, type Transaction } from 'kysely';
import type { Dialect } from '#src/db/database.js';

// The only Kysely code of the backup feature. Backups must see tables that other features add
// later, so everything here works on table names discovered at run time (Kysely<any>).

/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyDb = Kysely<any> | Transaction<any>;

export interface TableInfo {
  name: string;
  columns: string[];
  /** columns fed by a sequence (PostgreSQL bigserial / identity, SQLite AUTOINCREMENT) */
  autoIncrementing: string[];
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Every table of the application in foreign-key order (a referenced table before the tables
 * that reference it), Kysely's own migration tables excluded.
 */
export async function listTables(db: AnyDb, dialect: Dialect): Promise<TableInfo[]> {
  // on PostgreSQL the current schema only (src/db/pg-introspector.ts)
  const tables = (await db.introspection.getTables())
    .filter((t) => !t.isView && IDENTIFIER.test(t.name))
    .map((t) => ({
      name: t.name,
      columns: t.columns.map((c) => c.name),
      autoIncrementing: t.columns.filter((c) => c.isAutoIncrementing).map((c) => c.name),
    }));
  const references = await foreignKeys(db, dialect, tables);
  return sortByDependencies(tables, references);
}

/** table → the tables it references (self-references left out). */
async function foreignKeys(
  db: AnyDb,
  dialect: Dialect,
  tables: TableInfo[],
): Promise<Map<string, Set<string>>> {
  const edges = new Map(tables.map((t) => [t.name, new Set<string>()]));
  let rows: { child: string; parent: string }[];
  if (dialect === 'postgres') {
    rows = (
      await sql<{ child: string; parent: string }>`
        select child.relname as child, parent.relname as parent
        from pg_constraint c
        join pg_class child on child.oid = c.conrelid
        join pg_class parent on parent.oid = c.confrelid
        join pg_namespace n on n.oid = child.relnamespace
        where c.contype = 'f' and n.nspname = current_schema()`.execute(db)
    ).rows;
  } else {
    rows = [];
    for (const t of tables) {
      const fks = await sql<{
        table: string;
      }>`select "table" from pragma_foreign_key_list(${t.name})`.execute(db);
      rows.push(...fks.rows.map((r) => ({ child: t.name, parent: r.table })));
    }
  }
  for (const { child, parent } of rows) {
    if (child !== parent && edges.has(parent)) edges.get(child)?.add(parent);
  }
  return edges;
}

function sortByDependencies(
  tables: TableInfo[],
  references: Map<string, Set<string>>,
): TableInfo[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const done = new Set<string>();
  const ordered: TableInfo[] = [];
  const visit = (name: string, path: Set<string>) => {
    if (done.has(name) || path.has(name)) return; // a cycle: keep going, restore defers checks
    path.add(name);
    for (const parent of [...(references.get(name) ?? [])].sort()) visit(parent, path);
    path.delete(name);
    done.add(name);
    ordered.push(byName.get(name)!);
  };
  for (const t of [...tables].sort((a, b) => a.name.localeCompare(b.name)))
    visit(t.name, new Set());
  return ordered;
}

/** Names of the applied migrations (the schema version a dump was taken at). */
export async function appliedMigrations(db: AnyDb): Promise<string[]> {
  const { rows } = await sql<{
    name: string;
  }>`select name from kysely_migration order by name`.execute(db);
  return rows.map((r) => r.name);
}

export async function hasRows(db: AnyDb, table: string): Promise<boolean> {
  const row = await db
    .selectFrom(table)
    .select(sql`1`.as('one'))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function countRows(db: AnyDb, table: string): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function deleteAllRows(db: AnyDb, table: string): Promise<void> {
  await db.deleteFrom(table).execute();
}

export async function insertRows(
  db: AnyDb,
  table: string,
  rows: Record<string, unknown>[],
): Promise<void> {
  if (rows.length > 0) await db.insertInto(table).values(rows).execute();
}

/** SQLite: check foreign keys at commit, so rows may arrive in any order. */
export async function deferForeignKeys(db: AnyDb): Promise<void> {
  await sql`PRAGMA defer_foreign_keys = ON`.execute(db);
}

/** PostgreSQL: after inserting explicit ids, move each sequence past the largest id. */
export async function resetSequence(db: AnyDb, table: string, column: string): Promise<void> {
  await sql`select setval(
      pg_get_serial_sequence(${`"${table}"`}, ${column}),
      coalesce((select max(${sql.ref(column)}) from ${sql.table(table)}), 0) + 1,
      false)`.execute(db);
}

/** PostgreSQL: read a table through a server-side cursor, `batchSize` rows at a time. */
export async function* readWithCursor(
  trx: Transaction<any>,
  table: string,
  cursor: string,
  batchSize: number,
): AsyncGenerator<Record<string, unknown>[]> {
  await sql`declare ${sql.id(cursor)} no scroll cursor for select * from ${sql.table(table)}`.execute(
    trx,
  );
  try {
    for (;;) {
      const { rows } = await sql<Record<string, unknown>>`fetch ${sql.raw(
        String(batchSize),
      )} from ${sql.id(cursor)}`.execute(trx);
      if (rows.length === 0) return;
      yield rows;
    }
  } finally {
    await sql`close ${sql.id(cursor)}`.execute(trx);
  }
}

/** PostgreSQL: run `fn` only when no other instance holds the lock; null when it was held. */
export async function withTryAdvisoryLock<T>(
  db: Kysely<any>,
  key: number,
  fn: () => Promise<T>,
): Promise<T | null> {
  return db.connection().execute(async (conn) => {
    const { rows } = await sql<{
      locked: boolean;
    }>`select pg_try_advisory_lock(${key}) as locked`.execute(conn);
    if (!rows[0]?.locked) return null;
    try {
      return await fn();
    } finally {
      await sql`select pg_advisory_unlock(${key})`.execute(conn);
    }
  });
}
