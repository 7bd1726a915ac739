import type { Kysely } from 'kysely';

// Frozen once released: the resource catalog, its tags, the default tag suggestions and the
// per-admin staging area of analyzed files.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('resources')
    .addColumn('guid', 'text', (c) => c.primaryKey())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('file_format', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('file_size', 'bigint', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('storage_name', 'text', (c) => c.notNull().unique())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('release_date', 'text')
    .addColumn('author', 'text')
    .addColumn('language', 'text')
    .addColumn('edition', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('resources_created_idx')
    .on('resources')
    .column('created_at')
    .execute();

  await db.schema
    .createTable('resource_tags')
    .addColumn('resource_guid', 'text', (c) =>
      c.notNull().references('resources.guid').onDelete('cascade'),
    )
    .addColumn('tag', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('resource_tags_pk', ['resource_guid', 'tag'])
    .execute();
  await db.schema.createIndex('resource_tags_tag_idx').on('resource_tags').column('tag').execute();

  // the default suggestions, seeded on first use; a tag here is offered even with count 0
  await db.schema
    .createTable('resource_tag_defaults')
    .addColumn('tag', 'text', (c) => c.primaryKey())
    .addColumn('seeded_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('staged_files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('admin_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('storage_name', 'text', (c) => c.notNull())
    .addColumn('file_format', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('file_size', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('staged_files_name_uq', ['admin_id', 'filename'])
    .execute();
  await db.schema
    .createIndex('staged_files_created_idx')
    .on('staged_files')
    .column('created_at')
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['staged_files', 'resource_tag_defaults', 'resource_tags', 'resources']) {
    await db.schema.dropTable(table).execute();
  }
}
