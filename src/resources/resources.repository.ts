import { sql } from 'kysely';
import type { Executor } from '#src/db/executor.js';
import type { ResourcesTable } from '#src/db/types.js';

export type ResourceRow = ResourcesTable;

export interface ResourceFilter {
  q?: string;
  tag?: string;
  format?: string;
}

export function listResources(db: Executor, filter: ResourceFilter): Promise<ResourceRow[]> {
  let query = db.selectFrom('resources').selectAll();
  if (filter.q) {
    const pattern = `%${filter.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where((eb) =>
      eb.or(
        ['title', 'description', 'author'].map(
          (column) => sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`,
        ),
      ),
    );
  }
  if (filter.tag) {
    const tag = filter.tag;
    query = query.where('guid', 'in', (eb) =>
      eb.selectFrom('resource_tags').select('resource_guid').where('tag', '=', tag),
    );
  }
  if (filter.format) query = query.where('file_format', '=', filter.format);
  return query.orderBy('created_at', 'desc').orderBy('title').execute();
}

export function findResource(db: Executor, guid: string): Promise<ResourceRow | undefined> {
  return db.selectFrom('resources').selectAll().where('guid', '=', guid).executeTakeFirst();
}

export async function tagsOf(db: Executor, guids: string[]): Promise<Map<string, string[]>> {
  const byGuid = new Map<string, string[]>(guids.map((g) => [g, []]));
  if (guids.length === 0) return byGuid;
  const rows = await db
    .selectFrom('resource_tags')
    .select(['resource_guid', 'tag'])
    .where('resource_guid', 'in', guids)
    .orderBy('tag')
    .execute();
  for (const row of rows) byGuid.get(row.resource_guid)?.push(row.tag);
  return byGuid;
}

export async function insertResource(db: Executor, row: ResourceRow, tags: string[]) {
  await db.insertInto('resources').values(row).execute();
  if (tags.length > 0) {
    await db
      .insertInto('resource_tags')
      .values(tags.map((tag) => ({ resource_guid: row.guid, tag })))
      .execute();
  }
}

/** Replaces the editable metadata and the tags of a resource (the file stays). */
export async function updateResource(
  db: Executor,
  guid: string,
  fields: Pick<
    ResourceRow,
    'title' | 'description' | 'author' | 'language' | 'edition' | 'release_date' | 'updated_at'
  >,
  tags: string[],
): Promise<void> {
  await db.updateTable('resources').set(fields).where('guid', '=', guid).execute();
  await db.deleteFrom('resource_tags').where('resource_guid', '=', guid).execute();
  if (tags.length > 0) {
    await db
      .insertInto('resource_tags')
      .values(tags.map((tag) => ({ resource_guid: guid, tag })))
      .execute();
  }
}

export async function deleteResource(db: Executor, guid: string): Promise<boolean> {
  await db.deleteFrom('resource_tags').where('resource_guid', '=', guid).execute();
  const result = await db.deleteFrom('resources').where('guid', '=', guid).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function seedDefaultTags(db: Executor, tags: string[], now: number): Promise<void> {
  await db
    .insertInto('resource_tag_defaults')
    .values(tags.map((tag) => ({ tag, seeded_at: now })))
    .onConflict((oc) => oc.column('tag').doNothing())
    .execute();
}

/** Every default and every tag in use, with how many resources carry it. */
export async function tagCounts(db: Executor): Promise<{ tag: string; count: number }[]> {
  const used = await db
    .selectFrom('resource_tags')
    .select(['tag', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy('tag')
    .execute();
  const defaults = await db.selectFrom('resource_tag_defaults').select('tag').execute();
  const counts = new Map<string, number>(defaults.map((d) => [d.tag, 0]));
  for (const row of used) counts.set(row.tag, Number(row.count));
  return [...counts].map(([tag, count]) => ({ tag, count }));
}
