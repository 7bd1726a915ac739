import type { Session } from '#test/helpers/app.js';
import { call } from './helpers.js';

/** An inventory by names only: what must survive an export and an import elsewhere. */
export async function snapshotByNames(app: any, who: Session) {
  const body = (await call(app, who, 'GET', '/api/inventory')).body;
  const category = new Map(body.categories.map((c: any) => [c.id, c.name]));
  const location = new Map(body.locations.map((l: any) => [l.id, l.name]));
  return {
    categories: body.categories.map((c: any) => c.name).sort(),
    locations: body.locations.map((l: any) => l.name).sort(),
    items: body.items
      .map(({ categoryId, locationId, revision: _r, ...item }: any) => ({
        ...item,
        category: category.get(categoryId),
        location: location.get(locationId),
      }))
      .sort((a: any, b: any) => a.id.localeCompare(b.id)),
  };
}

export const importBody = (
  app: any,
  who: Session,
  payload: string | object,
  query = '',
  type?: string,
) =>
  app.inject({
    method: 'POST',
    url: `/api/inventory/import${query}`,
    headers: {
      ...who.headers,
      'content-type': type ?? (typeof payload === 'string' ? 'text/csv' : 'application/json'),
    },
    payload,
  });
