import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { call, postItems, seedBasics } from '#test/inventory/helpers.js';

describe.each(DIALECTS)("the admin's read-only items view (%s)", (dialect) => {
  const t = useTestApp(dialect);
  const [anna, ben] = t.users('anna', 'ben');

  it('lists an inventory’s items by name, with category and location names', async () => {
    await seedBasics(t.app, anna);
    await postItems(t.app, anna, [
      { name: 'Water', expiryDate: null },
      { name: 'Beans', expiryDate: '2026-12-01' },
    ]);
    const res = await call(
      t.app,
      t.admin,
      'GET',
      `/api/admin/inventories/${anna.inventoryId}/items`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      expect.objectContaining({
        name: 'Beans',
        expiryDate: '2026-12-01',
        category: 'Food',
        location: 'Pantry',
        quantity: 2,
        unit: 'kg',
      }),
      expect.objectContaining({ name: 'Water', expiryDate: null }),
    ]);
    expect(Object.keys(res.body[0]).sort()).toEqual(
      ['category', 'expiryDate', 'id', 'location', 'name', 'notes', 'quantity', 'unit'].sort(),
    );
    const empty = await call(
      t.app,
      t.admin,
      'GET',
      `/api/admin/inventories/${ben.inventoryId}/items`,
    );
    expect(empty).toEqual({ status: 200, body: [] });
  });

  it('is for admins only; an unknown inventory is 404 and a malformed id 400', async () => {
    const url = `/api/admin/inventories/${anna.inventoryId}/items`;
    expect((await call(t.app, ben, 'GET', url)).status).toBe(403);
    expect((await call(t.app, null, 'GET', url)).status).toBe(401);
    const unknown = await call(
      t.app,
      t.admin,
      'GET',
      `/api/admin/inventories/${crypto.randomUUID()}/items`,
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('not_found');
    expect((await call(t.app, t.admin, 'GET', '/api/admin/inventories/nope/items')).status).toBe(
      400,
    );
  });
});
