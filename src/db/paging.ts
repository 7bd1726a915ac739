/**
 * Keyset paging, newest first, on a timestamp with a sequence to break its ties: `page` holds the
 * newest `limit` rows before the cursor. When it is full, `ties(oldest)` reads the others sharing
 * the oldest one's timestamp (those with a lower sequence) and they are added, so that paging on
 * to `before=<the oldest timestamp>` skips none. Callers normalize the rows before `ties` sees one.
 */
export async function pageWithTies<R>(
  limit: number,
  page: Promise<R[]>,
  ties: (oldest: R) => Promise<R[]>,
): Promise<R[]> {
  const rows = await page;
  const oldest = rows.at(-1);
  if (oldest && rows.length === limit) rows.push(...(await ties(oldest)));
  return rows;
}
