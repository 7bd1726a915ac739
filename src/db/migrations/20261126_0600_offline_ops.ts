import type { Kysely } from 'kysely';

// Frozen once released: the offline queue merged without loss (POST /api/inventory/sync).
// - items.merge_state: per-field write times, the counted quantity's base and the adjustments
//   made after it, as JSON; '' means every field was written at last_updated by a REST write
//   (every row before this migration) and the quantity has no adjustments.
// - sync_ops: every operation id an inventory has taken, with its first result (duplicates).
// - deleted_items: ids a delete ended for the queue (later creates, updates, adjusts refused).

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('items')
    .addColumn('merge_state', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .createTable('sync_ops')
    .addColumn('inventory_id', 'text', (c) =>
      c.notNull().references('inventories.id').onDelete('cascade'),
    )
    .addColumn('op_id', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('recorded_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('sync_ops_pk', ['inventory_id', 'op_id'])
    .execute();
  await db.schema.createIndex('sync_ops_time_idx').on('sync_ops').column('recorded_at').execute();
  await db.schema
    .createTable('deleted_items')
    .addColumn('inventory_id', 'text', (c) =>
      c.notNull().references('inventories.id').onDelete('cascade'),
    )
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('deleted_items_pk', ['inventory_id', 'item_id'])
    .execute();
  await db.schema
    .createIndex('deleted_items_time_idx')
    .on('deleted_items')
    .column('deleted_at')
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('deleted_items').execute();
  await db.schema.dropTable('sync_ops').execute();
  await db.schema.alterTable('items').dropColumn('merge_state').execute();
}
