import type { Kysely } from 'kysely';

// Frozen once released: Web Push to closed apps (UnifiedPush). The VAPID key pair every instance
// signs with, the subscriptions (one per endpoint, each ending with its sign-in session) and the
// outbox of encrypted deliveries, one row per subscription and event.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // one row, id 1: inserting it is the lease to make the key pair (one instance wins)
  await db.schema
    .createTable('push_vapid_keys')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('private_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('push_subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // the subscription ends with its session (logout, revocation, password change, deletion)
    .addColumn('session_id', 'text', (c) =>
      c.notNull().references('sessions.id').onDelete('cascade'),
    )
    .addColumn('endpoint', 'text', (c) => c.notNull().unique())
    .addColumn('p256dh', 'text', (c) => c.notNull())
    .addColumn('auth', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('push_subscriptions_user_idx')
    .on('push_subscriptions')
    .column('user_id')
    .execute();
  await db.schema
    .createIndex('push_subscriptions_session_idx')
    .on('push_subscriptions')
    .column('session_id')
    .execute();
  await db.schema
    .createTable('push_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('subscription_id', 'text', (c) =>
      c.notNull().references('push_subscriptions.id').onDelete('cascade'),
    )
    // the event it carries ("message:<id>", "inventory:<id>:<revision>"): every instance hears
    // every event, and only the first insert of (subscription, key) goes in
    .addColumn('event_key', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('small_payload', 'text')
    .addColumn('urgency', 'text', (c) => c.notNull())
    .addColumn('topic', 'text')
    // the order of states within a Topic (an inventory's revision): an older one is not sent
    .addColumn('topic_seq', 'bigint')
    .addColumn('ttl_seconds', 'integer', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('push_deliveries_event_uq', ['subscription_id', 'event_key'])
    .execute();
  await db.schema
    .createIndex('push_deliveries_due_idx')
    .on('push_deliveries')
    .columns(['delivered_at', 'next_attempt_at'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['push_deliveries', 'push_subscriptions', 'push_vapid_keys']) {
    await db.schema.dropTable(table).execute();
  }
}
