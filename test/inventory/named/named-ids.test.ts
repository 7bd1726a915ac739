import { describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { call } from '#test/inventory/helpers.js';

const MAX_ID = 2147483647;

/** Ids the server picks stay within what the routes accept. */
describe.each(DIALECTS)('server-assigned category and location ids (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const [anna, ben] = t.users('anna', 'ben');

  describe.each(['categories', 'locations'] as const)('%s', (plural) => {
    const base = `/api/inventory/${plural}`;

    it('after the largest id is taken, POST picks the lowest free id, renamable and deletable', async () => {
      expect((await call(t.app, anna, 'PUT', `${base}/1`, { name: 'One' })).status).toBe(201);
      expect((await call(t.app, anna, 'PUT', `${base}/${MAX_ID}`, { name: 'Top' })).status).toBe(
        201,
      );
      const picked = await call(t.app, anna, 'POST', base, { name: 'Next' });
      expect(picked.status, JSON.stringify(picked.body)).toBe(201);
      expect(picked.body).toEqual({ id: 2, name: 'Next' });
      const again = await call(t.app, anna, 'POST', base, { name: 'After' });
      expect(again.body).toEqual({ id: 3, name: 'After' });
      const renamed = await call(t.app, anna, 'PUT', `${base}/3`, { name: 'Renamed' });
      expect(renamed.status).toBe(200);
      expect((await call(t.app, anna, 'DELETE', `${base}/3`)).status).toBe(204);
    });
  });

  it('an import creating names after id 2147483647 gets ids the routes accept (dry run and apply)', async () => {
    await call(t.app, ben, 'PUT', `/api/inventory/categories/${MAX_ID}`, { name: 'Top' });
    await call(t.app, ben, 'PUT', `/api/inventory/locations/${MAX_ID - 1}`, { name: 'Almost' });
    const csv = 'name,category,location,quantity\nRice,Food,Cellar,1\nTea,Drinks,Attic,2\n';
    for (const query of ['', '?apply=true']) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/inventory/import${query}`,
        headers: { ...ben.headers, 'content-type': 'text/csv' },
        payload: csv,
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    const inv = (await call(t.app, ben, 'GET', '/api/inventory')).body;
    expect(inv.categories).toEqual([
      { id: 1, name: 'Food' },
      { id: 2, name: 'Drinks' },
      { id: MAX_ID, name: 'Top' },
    ]);
    expect(inv.locations.map((l: any) => l.id)).toEqual([1, 2, MAX_ID - 1]);
    for (const { id } of inv.categories) {
      const res = await call(t.app, ben, 'PUT', `/api/inventory/categories/${id}`, {
        name: `Category ${id}`,
      });
      expect(res.status).toBe(200);
    }
  });
});
