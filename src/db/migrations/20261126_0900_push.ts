import { createTable, dropTables, USER_ID, type AnyDb } from './helpers.js';

// Frozen once released: Web Push to closed apps (UnifiedPush). The VAPID key pair every instance
// signs with, the subscriptions (one per endpoint, each ending with its sign-in session) and the
// outbox of encrypted deliveries, one row per subscription and event.
// Its code may be refactored only while test/db/schema-frozen.test.ts passes unchanged.

export async function up(db: AnyDb): Promise<void> {
  // one row, id 1: inserting it is the lease to make the key pair (one instance wins)
  await createTable(db, 'push_vapid_keys', {
    id: 'integer primary key',
    public_key: 'text not null',
    private_key: 'text not null',
    created_at: 'bigint not null',
  });
  await createTable(db, 'push_subscriptions', {
    id: 'text primary key',
    user_id: USER_ID,
    // the subscription ends with its session (logout, revocation, password change, deletion)
    session_id: 'text not null references sessions.id on delete cascade',
    endpoint: 'text not null unique',
    p256dh: 'text not null',
    auth: 'text not null',
    events: 'text not null',
    created_at: 'bigint not null',
    updated_at: 'bigint not null',
    push_subscriptions_user_idx: 'index (user_id)',
    push_subscriptions_session_idx: 'index (session_id)',
  });
  await createTable(db, 'push_deliveries', {
    id: 'text primary key',
    subscription_id: 'text not null references push_subscriptions.id on delete cascade',
    // the event it carries ("message:<id>", "inventory:<id>:<revision>"): every instance hears
    // every event, and only the first insert of (subscription, key) goes in
    event_key: 'text not null',
    payload: 'text not null',
    small_payload: 'text',
    urgency: 'text not null',
    topic: 'text',
    // the order of states within a Topic (an inventory's revision): an older one is not sent
    topic_seq: 'bigint',
    ttl_seconds: 'integer not null',
    attempts: 'integer not null',
    next_attempt_at: 'bigint not null',
    delivered_at: 'bigint',
    last_error: 'text',
    created_at: 'bigint not null',
    push_deliveries_event_uq: 'unique (subscription_id, event_key)',
    push_deliveries_due_idx: 'index (delivered_at, next_attempt_at)',
  });
}

export async function down(db: AnyDb): Promise<void> {
  await dropTables(db, 'push_deliveries', 'push_subscriptions', 'push_vapid_keys');
}
