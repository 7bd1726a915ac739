import type { AnyDb } from './helpers.js';

// The daily fold of item_adjusts past the kept history (items.adjusts.repository.ts,
// itemsWithAdjustsBefore) selects rows by time alone: without an index on `t` it read the whole
// table (the primary key starts with the inventory and the item) on every run.
// Its code may be refactored only while test/db/schema-frozen.test.ts passes unchanged.

export async function up(db: AnyDb): Promise<void> {
  await db.schema.createIndex('item_adjusts_t_idx').on('item_adjusts').column('t').execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('item_adjusts_t_idx').execute();
}
