import { createTable, dropTables, INVENTORY_ID, USER_ID, type AnyDb } from './helpers.js';

// Frozen once released: expiry digests (one per inventory and day), who got each one on their
// socket, the per-inventory webhook and its pending deliveries.
// Its code may be refactored only while test/db/schema-frozen.test.ts passes unchanged.

export async function up(db: AnyDb): Promise<void> {
  // the lease: whoever inserts (inventory_id, day) first computes and sends that day's digest
  await createTable(db, 'expiry_digests', {
    inventory_id: INVENTORY_ID,
    day: 'text not null',
    payload: 'text not null',
    item_count: 'integer not null',
    created_at: 'bigint not null',
    expiry_digests_pk: 'primary key (inventory_id, day)',
  });
  await createTable(db, 'expiry_digest_deliveries', {
    inventory_id: INVENTORY_ID,
    day: 'text not null',
    user_id: USER_ID,
    delivered_at: 'bigint not null',
    expiry_digest_deliveries_pk: 'primary key (inventory_id, day, user_id)',
  });
  await createTable(db, 'inventory_webhooks', {
    inventory_id: 'text primary key references inventories.id on delete cascade',
    url: 'text not null',
    secret: 'text not null',
    topic: 'text',
    created_at: 'bigint not null',
    updated_at: 'bigint not null',
  });
  await createTable(db, 'webhook_deliveries', {
    id: 'text primary key',
    inventory_id: INVENTORY_ID,
    body: 'text not null',
    attempts: 'integer not null',
    next_attempt_at: 'bigint not null',
    delivered_at: 'bigint',
    last_error: 'text',
    created_at: 'bigint not null',
    webhook_deliveries_due_idx: 'index (delivered_at, next_attempt_at)',
  });
}

export async function down(db: AnyDb): Promise<void> {
  await dropTables(
    db,
    'webhook_deliveries',
    'inventory_webhooks',
    'expiry_digest_deliveries',
    'expiry_digests',
  );
}
