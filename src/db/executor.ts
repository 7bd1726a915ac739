import { PostgresAdapter, type Kysely, type Transaction } from 'kysely';
import type { DB } from './types.js';

/** What a repository function runs on: the database or a transaction a service opened. */
export type Executor = Kysely<DB> | Transaction<DB>;

/** True when a database error is a unique-constraint violation, on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return (
    e?.code === '23505' ||
    e?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}

/** True when a database error is a foreign-key violation, on either dialect. */
export function isForeignKeyViolation(error: unknown): boolean {
  const e = error as { code?: string };
  return e?.code === '23503' || e?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/** True on PostgreSQL, where rows can be locked (FOR UPDATE); SQLite serializes transactions. */
export function isPostgres(db: Executor): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
