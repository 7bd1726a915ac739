import type { Kysely } from 'kysely';

// Frozen once released: expiry digests (one per inventory and day), who got each one on their
// socket, the per-inventory webhook and its pending deliveries.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // the lease: whoever inserts (inventory_id, day) first computes and sends that day's digest
  await db.schema
    .createTable('expiry_digests')
    .addColumn('inventory_id', 'text', (c) =>
      c.notNull().references('inventories.id').onDelete('cascade'),
    )
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('item_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('expiry_digests_pk', ['inventory_id', 'day'])
    .execute();
  await db.schema
    .createTable('expiry_digest_deliveries')
    .addColumn('inventory_id', 'text', (c) =>
      c.notNull().references('inventories.id').onDelete('cascade'),
    )
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('delivered_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('expiry_digest_deliveries_pk', ['inventory_id', 'day', 'user_id'])
    .execute();
  await db.schema
    .createTable('inventory_webhooks')
    .addColumn('inventory_id', 'text', (c) =>
      c.primaryKey().references('inventories.id').onDelete('cascade'),
    )
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('topic', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('inventory_id', 'text', (c) =>
      c.notNull().references('inventories.id').onDelete('cascade'),
    )
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due_idx')
    .on('webhook_deliveries')
    .columns(['delivered_at', 'next_attempt_at'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'webhook_deliveries',
    'inventory_webhooks',
    'expiry_digest_deliveries',
    'expiry_digests',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
