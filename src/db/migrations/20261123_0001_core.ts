import { createTable, dropTables, INVENTORY_ID, USER_ID, type AnyDb } from './helpers.js';

// Frozen once released: users, inventories, tokens, the inventory contents and the change log.
// Its code may be refactored only while test/db/schema-frozen.test.ts passes unchanged.

export async function up(db: AnyDb): Promise<void> {
  await createTable(db, 'inventories', {
    id: 'text primary key',
    name: "text not null default ''",
    revision: 'bigint not null default 0',
    history_floor: 'bigint not null default 0',
    created_at: 'bigint not null',
  });

  await createTable(db, 'users', {
    id: 'text primary key',
    username: 'text not null',
    username_key: 'text not null unique',
    password_hash: 'text not null',
    is_admin: 'integer not null default 0',
    inventory_id: 'text references inventories.id on delete set null',
    token_version: 'integer not null default 0',
    created_at: 'bigint not null',
    users_inventory_idx: 'index (inventory_id)',
  });

  await createTable(db, 'refresh_tokens', {
    token_hash: 'text primary key',
    user_id: USER_ID,
    family_id: 'text not null',
    token_version: 'integer not null',
    expires_at: 'bigint not null',
    created_at: 'bigint not null',
    used_at: 'bigint',
    refresh_tokens_family_idx: 'index (family_id)',
    refresh_tokens_user_idx: 'index (user_id)',
  });

  for (const table of ['categories', 'locations']) {
    await createTable(db, table, {
      inventory_id: INVENTORY_ID,
      id: 'integer not null',
      name: 'text not null',
      name_key: 'text not null',
      revision: 'bigint not null',
      updated_at: 'bigint not null',
      [`${table}_pk`]: 'primary key (inventory_id, id)',
      [`${table}_name_uq`]: 'unique (inventory_id, name_key)',
    });
  }

  await createTable(db, 'items', {
    inventory_id: INVENTORY_ID,
    id: 'text not null',
    name: 'text not null',
    category_id: 'integer not null',
    location_id: 'integer not null',
    quantity: 'double precision not null',
    unit: 'text not null',
    unit_price: 'double precision not null',
    kcal_per_kg: 'integer',
    expiry_date: 'text',
    notes: 'text not null',
    last_updated: 'bigint not null',
    revision: 'bigint not null',
    items_pk: 'primary key (inventory_id, id)',
    items_category_fk:
      'foreign key (inventory_id, category_id) references categories (inventory_id, id)',
    items_location_fk:
      'foreign key (inventory_id, location_id) references locations (inventory_id, id)',
    items_revision_idx: 'index (inventory_id, revision)',
  });

  await createTable(db, 'settings', {
    inventory_id: INVENTORY_ID,
    key: 'text not null',
    value: 'text not null',
    revision: 'bigint not null',
    settings_pk: 'primary key (inventory_id, key)',
  });

  await createTable(db, 'change_log', {
    id: 'serial primary key',
    inventory_id: INVENTORY_ID,
    revision: 'bigint not null',
    entity: 'text not null',
    entity_id: 'text not null',
    op: 'text not null',
    changed_at: 'bigint not null',
    change_log_inventory_idx: 'index (inventory_id, revision)',
    change_log_time_idx: 'index (changed_at)',
  });
}

export async function down(db: AnyDb): Promise<void> {
  await dropTables(
    db,
    'change_log',
    'settings',
    'items',
    'locations',
    'categories',
    'refresh_tokens',
    'users',
    'inventories',
  );
}
