import type { Kysely } from 'kysely';
import { autoIdType, isPostgres } from './helpers.js';

// Frozen once released: users, inventories, tokens, the inventory contents and the change log.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('inventories')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('revision', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('history_floor', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('username_key', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('inventory_id', 'text', (c) => c.references('inventories.id').onDelete('set null'))
    .addColumn('token_version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('users_inventory_idx').on('users').column('inventory_id').execute();

  await db.schema
    .createTable('refresh_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('family_id', 'text', (c) => c.notNull())
    .addColumn('token_version', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('refresh_tokens_family_idx')
    .on('refresh_tokens')
    .column('family_id')
    .execute();
  await db.schema
    .createIndex('refresh_tokens_user_idx')
    .on('refresh_tokens')
    .column('user_id')
    .execute();

  for (const table of ['categories', 'locations']) {
    await db.schema
      .createTable(table)
      .addColumn('inventory_id', 'text', (c) =>
        c.notNull().references('inventories.id').onDelete('cascade'),
      )
      .addColumn('id', 'integer', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('name_key', 'text', (c) => c.notNull())
      .addColumn('revision', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint(`${table}_pk`, ['inventory_id', 'id'])
      .addUniqueConstraint(`${table}_name_uq`, ['inventory_id', 'name_key'])
      .execute();
  }

  await db.schema
    .createTable('items')
    .addColumn('inventory_id', 'text', (c) =>
      c.notNull().references('inventories.id').onDelete('cascade'),
    )
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('category_id', 'integer', (c) => c.notNull())
    .addColumn('location_id', 'integer', (c) => c.notNull())
    .addColumn('quantity', 'double precision', (c) => c.notNull())
    .addColumn('unit', 'text', (c) => c.notNull())
    .addColumn('unit_price', 'double precision', (c) => c.notNull())
    .addColumn('kcal_per_kg', 'integer')
    .addColumn('expiry_date', 'text')
    .addColumn('notes', 'text', (c) => c.notNull())
    .addColumn('last_updated', 'bigint', (c) => c.notNull())
    .addColumn('revision', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('items_pk', ['inventory_id', 'id'])
    .addForeignKeyConstraint('items_category_fk', ['inventory_id', 'category_id'], 'categories', [
      'inventory_id',
      'id',
    ])
    .addForeignKeyConstraint('items_location_fk', ['inventory_id', 'location_id'], 'locations', [
      'inventory_id',
      'id',
    ])
    .execute();
  await db.schema
    .createIndex('items_revision_idx')
    .on('items')
    .columns(['inventory_id', 'revision'])
    .execute();

  await db.schema
    .createTable('settings')
    .addColumn('inventory_id', 'text', (c) =>
      c.notNull().references('inventories.id').onDelete('cascade'),
    )
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('revision', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('settings_pk', ['inventory_id', 'key'])
    .execute();

  await db.schema
    .createTable('change_log')
    .addColumn('id', autoIdType(db), (c) =>
      isPostgres(db) ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('inventory_id', 'text', (c) =>
      c.notNull().references('inventories.id').onDelete('cascade'),
    )
    .addColumn('revision', 'bigint', (c) => c.notNull())
    .addColumn('entity', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('op', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('change_log_inventory_idx')
    .on('change_log')
    .columns(['inventory_id', 'revision'])
    .execute();
  await db.schema
    .createIndex('change_log_time_idx')
    .on('change_log')
    .column('changed_at')
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'change_log',
    'settings',
    'items',
    'locations',
    'categories',
    'refresh_tokens',
    'users',
    'inventories',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
