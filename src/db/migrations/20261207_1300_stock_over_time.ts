import { INVENTORY_ID, createTable, dropTables, type AnyDb } from './helpers.js';

// The household's stock over time (docs/api.md "Journal", "Shopping list", "Readiness",
// "Expiry calendar"):
// - journal: one row per change of an item's quantity or existence, written by the one item
//   writer in the same transaction. `seq` orders rows written in the same millisecond; `id` (a
//   random uuid) is what the API shows: not indexed, since nothing looks a row up by it and a
//   unique index on it cost more than the rest of the row's write (bench/journal-cost.ts). A
//   deleted user's rows keep `username` (user_id set null).
// - stock_levels: an item's minimum and target quantity, apart from the app's item record.
// - shopping_entries: manual entries, and the checked mark of a derived below-minimum entry
//   (`source` 'below_minimum', id `item:<itemId>`).
// - calendar_keys: the one feed key of an inventory's expiry calendar (stored as its SHA-256).
// Its code may be refactored only while test/db/schema-frozen.test.ts passes unchanged.

export async function up(db: AnyDb): Promise<void> {
  await createTable(db, 'journal', {
    seq: 'serial primary key',
    id: 'text not null',
    inventory_id: INVENTORY_ID,
    at: 'bigint not null',
    item_id: 'text not null',
    item_name: 'text not null',
    user_id: 'text references users.id on delete set null',
    username: 'text not null',
    device_id: 'text',
    op_id: 'text',
    source: 'text not null',
    kind: 'text not null',
    delta: 'double precision not null',
    quantity_after: 'double precision not null',
    journal_inventory_at_idx: 'index (inventory_id, at)',
    journal_item_at_idx: 'index (inventory_id, item_id, at)',
    journal_at_idx: 'index (at)',
  });
  await createTable(db, 'stock_levels', {
    inventory_id: INVENTORY_ID,
    item_id: 'text not null',
    min_quantity: 'double precision not null',
    target_quantity: 'double precision not null',
    updated_at: 'bigint not null',
    stock_levels_pk: 'primary key (inventory_id, item_id)',
  });
  await createTable(db, 'shopping_entries', {
    inventory_id: INVENTORY_ID,
    id: 'text not null',
    source: 'text not null',
    item_id: 'text',
    name: 'text not null',
    quantity: 'double precision',
    unit: 'text not null',
    checked: 'integer not null default 0',
    created_at: 'bigint not null',
    updated_at: 'bigint not null',
    shopping_entries_pk: 'primary key (inventory_id, id)',
  });
  await createTable(db, 'calendar_keys', {
    inventory_id: 'text primary key references inventories.id on delete cascade',
    key_hash: 'text not null unique',
    created_at: 'bigint not null',
  });
}

export async function down(db: AnyDb): Promise<void> {
  await dropTables(db, 'calendar_keys', 'shopping_entries', 'stock_levels', 'journal');
}
