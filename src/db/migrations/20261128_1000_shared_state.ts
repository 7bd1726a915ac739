import { createTable, dropTables, type AnyDb } from './helpers.js';

// Frozen once released: what every instance must agree on, kept in the database so that hosts
// share nothing but it: the JWT signing keys (each with a kid) and the published app version.
// Its code may be refactored only while test/db/schema-frozen.test.ts passes unchanged.

export async function up(db: AnyDb): Promise<void> {
  await createTable(db, 'jwt_keys', {
    kid: 'text primary key',
    secret: 'text not null',
    // the newest key that still verifies signs; inserting generation n + 1 is the lease to
    // rotate (two instances making the first key, or rotating at once, cannot both win)
    generation: 'integer not null unique',
    // 1 for the secret of an installation from before keys had a kid: it alone verifies a token
    // without a kid
    legacy: 'integer not null',
    created_at: 'bigint not null',
    // when it stops verifying; null while it is the key that signs
    retired_at: 'bigint',
  });
  await createTable(db, 'server_settings', {
    name: 'text primary key',
    value: 'text not null',
    updated_at: 'bigint not null',
  });
}

export async function down(db: AnyDb): Promise<void> {
  await dropTables(db, 'server_settings', 'jwt_keys');
}
