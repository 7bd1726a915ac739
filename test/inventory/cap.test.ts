import { describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { MAX_ITEMS_PER_INVENTORY } from '#src/inventory/store/inventory.limits.js';
import { call, wholeInventory } from './helpers.js';

describe.each(DIALECTS)('the items cap, refused before anything is written (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const anna = t.user('anna');

  it('is 20,000 items', () => {
    expect(MAX_ITEMS_PER_INVENTORY).toBe(20_000);
  });

  it('PUT /api/inventory with one item more than the cap is 422 inventory_full', async () => {
    expect((await call(t.app, anna, 'PUT', '/api/inventory', wholeInventory(2))).status).toBe(200);
    const before = (await call(t.app, anna, 'GET', '/api/inventory')).body;
    const over = await call(
      t.app,
      anna,
      'PUT',
      '/api/inventory',
      wholeInventory(MAX_ITEMS_PER_INVENTORY + 1),
    );
    expect(over.status).toBe(422);
    expect(over.body).toMatchObject({ code: 'inventory_full', maxItems: MAX_ITEMS_PER_INVENTORY });
    expect(over.body.message).toContain('20000');
    expect((await call(t.app, anna, 'GET', '/api/inventory')).body).toEqual(before);
  });
});
