import { createTable, dropTables, USER_ID, type AnyDb } from './helpers.js';

// Frozen once released: the resource catalog, its tags, the default tag suggestions and the
// per-admin staging area of analyzed files.
// Its code may be refactored only while test/db/schema-frozen.test.ts passes unchanged.

export async function up(db: AnyDb): Promise<void> {
  await createTable(db, 'resources', {
    guid: 'text primary key',
    title: 'text not null',
    description: "text not null default ''",
    file_format: 'text not null',
    mime_type: 'text not null',
    file_size: 'bigint not null',
    file_name: 'text not null',
    storage_name: 'text not null unique',
    sha256: 'text not null',
    release_date: 'text',
    author: 'text',
    language: 'text',
    edition: 'text',
    created_at: 'bigint not null',
    updated_at: 'bigint not null',
    resources_created_idx: 'index (created_at)',
  });

  await createTable(db, 'resource_tags', {
    resource_guid: 'text not null references resources.guid on delete cascade',
    tag: 'text not null',
    resource_tags_pk: 'primary key (resource_guid, tag)',
    resource_tags_tag_idx: 'index (tag)',
  });

  // the default suggestions, seeded on first use; a tag here is offered even with count 0
  await createTable(db, 'resource_tag_defaults', {
    tag: 'text primary key',
    seeded_at: 'bigint not null',
  });

  await createTable(db, 'staged_files', {
    id: 'text primary key',
    admin_id: USER_ID,
    filename: 'text not null',
    storage_name: 'text not null',
    file_format: 'text not null',
    mime_type: 'text not null',
    file_size: 'bigint not null',
    created_at: 'bigint not null',
    staged_files_name_uq: 'unique (admin_id, filename)',
    staged_files_created_idx: 'index (created_at)',
  });
}

export async function down(db: AnyDb): Promise<void> {
  await dropTables(db, 'staged_files', 'resource_tag_defaults', 'resource_tags', 'resources');
}
