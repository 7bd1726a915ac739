import type { Executor } from '#src/db/executor.js';

const VERSION = 'version';

/** The published version's JSON, or undefined when none was published. */
export async function findPublishedVersion(db: Executor): Promise<string | undefined> {
  const row = await db
    .selectFrom('server_settings')
    .select('value')
    .where('name', '=', VERSION)
    .executeTakeFirst();
  return row?.value;
}

/** Stores the published version's JSON; `onlyIfNone` keeps one that is there already. */
export async function savePublishedVersion(
  db: Executor,
  value: string,
  now: number,
  options: { onlyIfNone?: boolean } = {},
): Promise<void> {
  await db
    .insertInto('server_settings')
    .values({ name: VERSION, value, updated_at: now })
    .onConflict((oc) =>
      options.onlyIfNone
        ? oc.column('name').doNothing()
        : oc.column('name').doUpdateSet({ value, updated_at: now }),
    )
    .execute();
}
