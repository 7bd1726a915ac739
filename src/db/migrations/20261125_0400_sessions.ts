import { sql } from 'kysely';
import { createTable, dropTables, USER_ID, type AnyDb } from './helpers.js';

// Frozen once released: sign-in sessions (one per refresh-token family) and the failed sign-in
// counters, kept in the database so every instance and the CLI see the same ones.
// Its code may be refactored only while test/db/schema-frozen.test.ts passes unchanged.

export async function up(db: AnyDb): Promise<void> {
  await createTable(db, 'sessions', {
    // the same id as the refresh-token family of the sign-in
    id: 'text primary key',
    user_id: USER_ID,
    created_at: 'bigint not null',
    last_used_at: 'bigint not null',
    user_agent: 'text',
    address: 'text',
    sessions_user_idx: 'index (user_id)',
  });
  await backfillSessions(db);

  await createTable(db, 'login_throttle', {
    // 'u:<username>', 'a:<address>' or 'p:<username> <address>'
    key: 'text primary key',
    failures: 'integer not null',
    window_ends_at: 'bigint not null',
    next_attempt_at: 'bigint not null',
  });
}

/**
 * Every sign-in made before sessions existed becomes one, so its refresh token keeps working.
 * Also run by a restore of a backup made before this migration (src/db/migrate.ts BACKFILLS).
 */
export async function backfillSessions(db: AnyDb): Promise<void> {
  await sql`
    insert into sessions (id, user_id, created_at, last_used_at)
    select family_id, user_id, min(created_at), max(created_at)
    from refresh_tokens
    where family_id not in (select id from sessions)
    group by family_id, user_id`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await dropTables(db, 'login_throttle', 'sessions');
}
