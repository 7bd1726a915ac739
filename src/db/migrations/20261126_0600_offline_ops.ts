import { createTable, dropTables, INVENTORY_ID, type AnyDb } from './helpers.js';

// Frozen once released: the offline queue merged without loss (POST /api/inventory/sync).
// - items.merge_state: per-field write times, the counted quantity's base and the adjustments
//   made after it, as JSON; '' means every field was written at last_updated by a REST write
//   (every row before this migration) and the quantity has no adjustments.
// - sync_ops: every operation id an inventory has taken, with its first result (duplicates).
// - deleted_items: ids a delete ended for the queue (later creates, updates, adjusts refused).
// Its code may be refactored only while test/db/schema-frozen.test.ts passes unchanged.

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable('items')
    .addColumn('merge_state', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await createTable(db, 'sync_ops', {
    inventory_id: INVENTORY_ID,
    op_id: 'text not null',
    result: 'text not null',
    recorded_at: 'bigint not null',
    sync_ops_pk: 'primary key (inventory_id, op_id)',
    sync_ops_time_idx: 'index (recorded_at)',
  });
  await createTable(db, 'deleted_items', {
    inventory_id: INVENTORY_ID,
    item_id: 'text not null',
    deleted_at: 'bigint not null',
    deleted_items_pk: 'primary key (inventory_id, item_id)',
    deleted_items_time_idx: 'index (deleted_at)',
  });
}

export async function down(db: AnyDb): Promise<void> {
  await dropTables(db, 'deleted_items', 'sync_ops');
  await db.schema.alterTable('items').dropColumn('merge_state').execute();
}
