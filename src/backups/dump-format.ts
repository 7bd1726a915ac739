import type { Dialect } from '#src/db/database.js';

/**
 * The dump format, version 1: plain SQL that both SQLite and PostgreSQL read.
 *
 *   -- Larder backup
 *   -- format: 1
 *   -- dialect: sqlite
 *   -- created-at: 2026-11-23T01:02:03.000Z
 *   -- migrations: 20261123_0001_core,20261123_0002_messages
 *   -- table: inventories
 *   INSERT INTO "inventories" ("id", "name") VALUES ('…', 'Home');
 *   …
 *   -- table-rows: inventories=1,items=1200,…
 *   -- end of backup: 1234 rows
 *
 * One INSERT per row, tables in foreign-key order. Literals are dialect-neutral: numbers,
 * NULL, standard strings ('' escapes a quote; newlines stay literal), and X'hex' for bytes
 * (read back by `larder restore`). Booleans are written as 1/0 (our schema stores 0/1), dates
 * as ISO strings, JSON values as their JSON text.
 */
export const MAGIC = '-- Larder backup';
export const FORMAT_VERSION = '1';
export const END_MARKER = '-- end of backup:';
/** The rows of each table at dump time, so a restore can be checked table by table. */
export const TABLE_ROWS = 'table-rows';

export function tableRowsLine(counts: Record<string, number>): string {
  const list = Object.entries(counts).map(([table, n]) => `${table}=${n}`);
  return `-- ${TABLE_ROWS}: ${list.join(',')}\n`;
}

export function parseTableRows(value: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const pair of value.split(',')) {
    const [table, n] = pair.split('=');
    if (table && n !== undefined && /^\d+$/.test(n)) counts[table] = Number(n);
  }
  return counts;
}

export interface DumpHeader {
  dialect: Dialect;
  createdAt: number;
  migrations: string[];
}

export function headerLines(header: DumpHeader): string {
  return (
    [
      MAGIC,
      `-- format: ${FORMAT_VERSION}`,
      `-- dialect: ${header.dialect}`,
      `-- created-at: ${new Date(header.createdAt).toISOString()}`,
      `-- migrations: ${header.migrations.join(',')}`,
    ].join('\n') + '\n'
  );
}

function quoteString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`cannot write the number ${value} portably`);
    return String(value);
  }
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'string') return quoteString(value);
  if (Buffer.isBuffer(value)) return `X'${value.toString('hex')}'`;
  if (value instanceof Date) return quoteString(value.toISOString());
  return quoteString(JSON.stringify(value));
}

/** `INSERT INTO "t" ("a", "b") VALUES (` for a table's columns, built once per table. */
export function insertPrefix(table: string, columns: string[]): string {
  return `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (`;
}

export function insertStatement(prefix: string, columns: string[], row: Record<string, unknown>) {
  return `${prefix}${columns.map((c) => sqlLiteral(row[c])).join(', ')});\n`;
}
