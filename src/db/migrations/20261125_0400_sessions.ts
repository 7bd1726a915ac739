import { sql, type Kysely } from 'kysely';

// Frozen once released: sign-in sessions (one per refresh-token family) and the failed sign-in
// counters, kept in the database so every instance and the CLI see the same ones.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sessions')
    // the same id as the refresh-token family of the sign-in
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .addColumn('address', 'text')
    .execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();
  await backfillSessions(db);

  await db.schema
    .createTable('login_throttle')
    // 'u:<username>', 'a:<address>' or 'p:<username> <address>'
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('window_ends_at', 'bigint', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .execute();
}

/**
 * Every sign-in made before sessions existed becomes one, so its refresh token keeps working.
 * Also run by a restore of a backup made before this migration (src/db/migrate.ts BACKFILLS).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function backfillSessions(db: Kysely<any>): Promise<void> {
  await sql`
    insert into sessions (id, user_id, created_at, last_used_at)
    select family_id, user_id, min(created_at), max(created_at)
    from refresh_tokens
    where family_id not in (select id from sessions)
    group by family_id, user_id`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('login_throttle').execute();
  await db.schema.dropTable('sessions').execute();
}
