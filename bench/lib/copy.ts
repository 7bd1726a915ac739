import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { Store } from './larder.js';
import { onCleanUp, tempDir } from './processes.js';
import { dropSchema } from './target.js';

/** Where a bare baseline finds its database: a copy of Larder's, so rows, indexes and keys match. */
export interface BaselineDatabase {
  dialect: 'sqlite' | 'postgres';
  sqlitePath?: string;
  pgUrl?: string;
  pgSchema?: string;
}

let copies = 0;

/** Tables copied on PostgreSQL: what the baseline statements touch and what their keys refer to. */
const PG_TABLES = ['inventories', 'users', 'categories', 'locations', 'items', 'messages'];

/**
 * Copies Larder's database for a baseline: the SQLite file through the online backup API, or on
 * PostgreSQL the tables (indexes, defaults on their own sequences, foreign keys) into a schema
 * of their own, dropped at clean-up. Larder's own data is never written by a baseline.
 */
export async function copyDatabase(store: Store): Promise<BaselineDatabase> {
  if (store.schema === null) {
    const sqlitePath = path.join(tempDir('baseline-db'), 'baseline.db');
    const source = new SQLite(path.join(store.dataDir, 'larder.db'), { readonly: true });
    try {
      await source.backup(sqlitePath);
    } finally {
      source.close();
    }
    return { dialect: 'sqlite', sqlitePath };
  }
  const from = store.schema;
  const to = `${from}_base${++copies}`;
  onCleanUp(`drop schema ${to}`, () => dropSchema(store.target, to));
  const client = new pg.Client({
    connectionString: store.target.url!,
    // constraint definitions print with names unqualified, so they resolve in the copy
    options: `-c search_path=${from}`,
  });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA "${to}"`);
    for (const table of PG_TABLES) {
      await client.query(`CREATE TABLE "${to}".${table} (LIKE "${from}".${table} INCLUDING ALL)`);
      await client.query(`INSERT INTO "${to}".${table} SELECT * FROM "${from}".${table}`);
      await ownSequences(client, from, to, table);
    }
    for (const table of PG_TABLES) {
      const keys = await client.query(
        `SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
         WHERE conrelid = $1::regclass AND contype = 'f'`,
        [`"${from}".${table}`],
      );
      for (const key of keys.rows) {
        await client.query(`SET search_path = "${to}"`);
        await client.query(`ALTER TABLE ${table} ADD CONSTRAINT "${key.conname}" ${key.def}`);
        await client.query(`SET search_path = "${from}"`);
      }
    }
  } finally {
    await client.end();
  }
  return { dialect: 'postgres', pgUrl: store.target.url!, pgSchema: to };
}

/** A copied serial column still draws from the source's sequence: give it one of its own. */
async function ownSequences(client: pg.Client, from: string, to: string, table: string) {
  const serials = await client.query(
    `SELECT column_name FROM information_schema.columns
     WHERE table_schema = $1 AND table_name = $2 AND column_default LIKE 'nextval(%'`,
    [from, table],
  );
  for (const { column_name: column } of serials.rows) {
    const sequence = `"${to}".${table}_${column}_copy`;
    await client.query(`CREATE SEQUENCE ${sequence} OWNED BY "${to}".${table}.${column}`);
    await client.query(
      `ALTER TABLE "${to}".${table} ALTER COLUMN ${column} SET DEFAULT nextval('${sequence}')`,
    );
    await client.query(
      `SELECT setval('${sequence}', COALESCE((SELECT max(${column}) FROM "${to}".${table}), 0) + 1, false)`,
    );
  }
}
