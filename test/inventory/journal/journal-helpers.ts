import type { FastifyInstance } from 'fastify';
import type { Session } from '#test/helpers/app.js';
import { call } from '#test/inventory/helpers.js';

/** An entry as a test compares it: what a reader checks, without the random id and the time. */
export function brief(entry: Record<string, any>) {
  const { id: _id, at: _at, ...rest } = entry;
  return rest;
}

/** The inventory's journal (newest first) as `who` reads it, or an item's with `itemId`. */
export async function journalOf(
  app: FastifyInstance,
  who: Session,
  query = '',
  itemId?: string,
): Promise<Record<string, any>[]> {
  const url = itemId
    ? `/api/inventory/items/${itemId}/journal${query}`
    : `/api/inventory/journal${query}`;
  const res = await call(app, who, 'GET', url);
  if (res.status !== 200) throw new Error(`journal: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.entries;
}
