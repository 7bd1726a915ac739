import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';

/** The database the run measures: SQLite files, or schemas in one PostgreSQL database. */
export interface Target {
  dialect: 'sqlite' | 'postgres';
  url: string | null;
}

export const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/test';

export function chooseTarget(pgFlag: boolean): Target {
  const url = process.env.LARDER_TEST_DATABASE_URL;
  if (pgFlag || url) return { dialect: 'postgres', url: url || DEFAULT_PG_URL };
  return { dialect: 'sqlite', url: null };
}

/** A minimal SQL connection for seeding and copying, the same on both dialects (`?` placeholders). */
export interface Sql {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  columns(table: string): Promise<string[]>;
  close(): Promise<void>;
}

export async function connectSql(
  target: Target,
  where: { dataDir: string; schema: string | null },
): Promise<Sql> {
  if (target.dialect === 'sqlite') {
    const db = new SQLite(path.join(where.dataDir, 'larder.db'));
    db.pragma('busy_timeout = 5000');
    return {
      async query<T>(text: string, params: unknown[] = []) {
        const statement = db.prepare(text);
        return (
          statement.reader ? statement.all(...params) : (statement.run(...params), [])
        ) as T[];
      },
      async columns(table) {
        return (db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name);
      },
      async close() {
        db.pragma('wal_checkpoint(TRUNCATE)');
        db.close();
      },
    };
  }
  const client = new pg.Client({
    connectionString: target.url!,
    options: `-c search_path=${where.schema}`,
  });
  await client.connect();
  return {
    async query<T>(text: string, params: unknown[] = []) {
      let n = 0;
      const result = await client.query(
        text.replace(/\?/g, () => `$${++n}`),
        params,
      );
      return result.rows as T[];
    },
    async columns(table) {
      const result = await client.query(
        `select column_name from information_schema.columns
         where table_schema = $1 and table_name = $2 order by ordinal_position`,
        [where.schema, table],
      );
      return result.rows.map((r) => r.column_name as string);
    },
    close: () => client.end(),
  };
}

export async function dropSchema(target: Target, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: target.url! });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
