import path from 'node:path';
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from 'kysely';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '#src/config.js';
import { createDatabase } from '#src/db/database.js';
import { MIGRATIONS, migrateToLatest } from '#src/db/migrate.js';
import {
  DIALECTS,
  destroyTestEnvironment,
  testEnvironment,
  type TestDialect,
} from '#test/helpers/app.js';

// Released migrations are frozen: what they do must not change by a byte, though their code may
// be refactored (docs/decisions.md). These tests hold them to committed snapshots:
// - the SQL every migration's up and down sends, on both dialects (compiled, no database);
// - the schema a fresh database has after each migration, applied one at a time as an upgrade
//   or a restore of an older backup meets them, and after all of them in one go as a first start
//   does: on SQLite every sqlite_master row, on PostgreSQL its columns, constraints, indexes and
//   sequences.
// A new migration adds to the snapshots: `npx vitest run test/db/schema-frozen.test.ts -u`
// (with LARDER_TEST_DATABASE_URL set, for the PostgreSQL one), and the diff shows only it.

const SNAPSHOTS = path.join(import.meta.dirname, '__snapshots__');
const NAMES = Object.keys(MIGRATIONS);

/** As `prettier --check` wants it, so that the lint and the snapshot agree on the bytes. */
async function asJson(value: unknown, file: string): Promise<string> {
  const options = await prettier.resolveConfig(file);
  return prettier.format(JSON.stringify(value), { ...options, filepath: file });
}

/** A Kysely that compiles and records every statement and runs none. */
function recordingDb(dialect: TestDialect): { db: Kysely<any>; statements: string[] } {
  const statements: string[] = [];
  const pg = dialect === 'postgres';
  const db = new Kysely<any>({
    dialect: {
      createAdapter: () => (pg ? new PostgresAdapter() : new SqliteAdapter()),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => (pg ? new PostgresIntrospector(k) : new SqliteIntrospector(k)),
      createQueryCompiler: () => (pg ? new PostgresQueryCompiler() : new SqliteQueryCompiler()),
    },
    log: (event) => {
      const { sql: text, parameters } = event.query;
      statements.push(parameters.length ? `${text} -- ${JSON.stringify(parameters)}` : text);
    },
  });
  return { db, statements };
}

/** The schema's rows that Larder's migrations made (not the migrator's own bookkeeping). */
async function readSqliteSchema(db: Kysely<any>): Promise<unknown> {
  const { rows } = await sql`
    select type, name, tbl_name, sql from sqlite_master
    where tbl_name not like 'kysely_migration%'
    order by rowid`.execute(db);
  return rows;
}

/** One line a column, constraint, index and sequence, so that a diff names what changed. */
async function readPostgresSchema(db: Kysely<any>): Promise<unknown> {
  const own = sql`n.nspname = current_schema() and c.relname not like 'kysely_migration%'`;
  const lines = async (query: ReturnType<typeof sql<{ line: string }>>) =>
    (await query.execute(db)).rows.map((r) => r.line);
  return {
    columns: await lines(sql`
      select c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
        || case when a.attnotnull then ' not null' else '' end
        || case when a.attidentity <> '' then ' identity ' || a.attidentity::text else '' end
        || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '') as line
      from pg_attribute a
      join pg_class c on c.oid = a.attrelid
      join pg_namespace n on n.oid = c.relnamespace
      left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where ${own} and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped
      order by c.relname, a.attnum`),
    constraints: await lines(sql`
      select c.relname || '.' || co.conname || ': ' || pg_get_constraintdef(co.oid) as line
      from pg_constraint co
      join pg_class c on c.oid = co.conrelid
      join pg_namespace n on n.oid = co.connamespace
      where ${own}
      order by c.relname, co.conname`),
    indexes: await lines(sql`
      select indexdef as line
      from pg_indexes
      where schemaname = current_schema() and tablename not like 'kysely_migration%'
      order by tablename, indexname`),
    sequences: await lines(sql`
      select concat_ws(' ', sequencename, data_type, 'start', start_value, 'min', min_value,
        'max', max_value, 'increment', increment_by, 'cycle', cycle, 'cache', cache_size) as line
      from pg_sequences
      where schemaname = current_schema()
      order by sequencename`),
  };
}

/** A fresh database of that dialect (on PostgreSQL a fresh schema), removed after `body`. */
async function withFreshDatabase<T>(
  dialect: TestDialect,
  body: (db: Kysely<any>, read: () => Promise<unknown>) => Promise<T>,
): Promise<T> {
  const env = testEnvironment(dialect);
  const database = await createDatabase(loadConfig(env));
  const db = database.db as unknown as Kysely<any>;
  // the schema's random name stands in index definitions and sequence defaults
  const schema = env.LARDER_DATABASE_SCHEMA;
  const read = async () => {
    const rows = dialect === 'postgres' ? await readPostgresSchema(db) : await readSqliteSchema(db);
    const text = JSON.stringify(rows);
    return JSON.parse(schema ? text.replaceAll(schema, '<schema>') : text) as unknown;
  };
  try {
    return await body(db, read);
  } finally {
    await database.destroy();
    await destroyTestEnvironment(env);
  }
}

describe('released migrations are frozen', () => {
  it('send the same statements, up and down, on both dialects', async () => {
    const snapshot: Record<string, Record<string, { up: string[]; down: string[] }>> = {};
    for (const dialect of ['sqlite', 'postgres'] as const) {
      snapshot[dialect] = {};
      for (const name of NAMES) {
        const migration = MIGRATIONS[name]!;
        const { db, statements } = recordingDb(dialect);
        await migration.up(db);
        const up = statements.splice(0);
        await migration.down!(db);
        snapshot[dialect][name] = { up, down: statements.splice(0) };
        await db.destroy();
      }
    }
    const file = path.join(SNAPSHOTS, 'schema-frozen.statements.json');
    await expect(await asJson(snapshot, file)).toMatchFileSnapshot(file);
  });

  for (const dialect of DIALECTS) {
    it(`make the same ${dialect} schema after each migration, and after all at once`, async () => {
      const steps: Record<string, unknown> = {};
      await withFreshDatabase(dialect, async (db, read) => {
        for (let i = 1; i <= NAMES.length; i++) {
          const upTo = Object.fromEntries(NAMES.slice(0, i).map((n) => [n, MIGRATIONS[n]!]));
          expect(await migrateToLatest(db, upTo)).toEqual([NAMES[i - 1]]);
          steps[NAMES[i - 1]!] = await read();
        }
      });
      const file = path.join(SNAPSHOTS, `schema-frozen.${dialect}.json`);
      await expect(await asJson(steps, file)).toMatchFileSnapshot(file);

      const latest = await withFreshDatabase(dialect, async (db, read) => {
        expect(await migrateToLatest(db)).toEqual(NAMES);
        return read();
      });
      expect(latest).toEqual(steps[NAMES.at(-1)!]);
    });
  }
});
