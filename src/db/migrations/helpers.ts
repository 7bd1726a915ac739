import { PostgresAdapter, type Kysely } from 'kysely';

// Small dialect helpers for migrations. Migrations never import application code.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** Column type of an auto-incrementing integer primary key. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function autoIdType(db: Kysely<any>): 'bigserial' | 'integer' {
  return isPostgres(db) ? 'bigserial' : 'integer';
}
