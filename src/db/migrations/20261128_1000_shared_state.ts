import type { Kysely } from 'kysely';

// Frozen once released: what every instance must agree on, kept in the database so that hosts
// share nothing but it: the JWT signing keys (each with a kid) and the published app version.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('jwt_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('secret', 'text', (c) => c.notNull())
    // the newest key that still verifies signs; inserting generation n + 1 is the lease to
    // rotate (two instances making the first key, or rotating at once, cannot both win)
    .addColumn('generation', 'integer', (c) => c.notNull().unique())
    // 1 for the secret of an installation from before keys had a kid: it alone verifies a token
    // without a kid
    .addColumn('legacy', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    // when it stops verifying; null while it is the key that signs
    .addColumn('retired_at', 'bigint')
    .execute();
  await db.schema
    .createTable('server_settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('server_settings').execute();
  await db.schema.dropTable('jwt_keys').execute();
}
