import { describe, expect, it } from 'vitest';
import { DIALECTS, login } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { callsAs, itemBody, wholeInventory } from '#test/inventory/helpers.js';

const DAY = 24 * 3600 * 1000;

describe.each(DIALECTS)('full and delta sync (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const anna = t.user('anna');
  const api = callsAs(t, anna);

  it('a new inventory is an empty snapshot at revision 0', async () => {
    const res = await api('GET', '/api/inventory');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      inventoryId: anna.inventoryId,
      name: '',
      revision: 0,
      items: [],
      categories: [],
      locations: [],
      settings: {},
    });
    expect((await api('GET', '/api/inventory/changes?since=0')).body).toMatchObject({
      revision: 0,
      items: [],
      deletedItemIds: [],
    });
  });

  it('PUT replaces the whole inventory; GET returns it; PUT of that GET changes nothing', async () => {
    const put = await api('PUT', '/api/inventory', wholeInventory(3));
    expect(put.status).toBe(200);
    expect(put.body.revision).toBe(1);
    expect(put.body.items).toHaveLength(3);
    const snapshot = (await api('GET', '/api/inventory')).body;
    expect(snapshot).toEqual(put.body);
    expect(snapshot).toMatchObject({ name: 'Home', settings: { householdSize: '2' } });
    const again = await api('PUT', '/api/inventory', snapshot);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(snapshot);
  });

  it('a second PUT swaps names, drops and changes items; deltas report exactly that', async () => {
    const body = wholeInventory(2, {
      categories: [
        { id: 1, name: 'Drinks' },
        { id: 2, name: 'Food' },
      ],
      settings: {},
    });
    body.items[1] = itemBody({ id: 'item-1', name: 'Renamed', categoryId: 2, lastUpdated: 1 });
    const put = await api('PUT', '/api/inventory', body);
    expect(put.status).toBe(200);
    const delta = (await api('GET', '/api/inventory/changes?since=1')).body;
    expect(delta).toEqual({
      revision: 2,
      name: 'Home',
      items: [expect.objectContaining({ id: 'item-1', name: 'Renamed', revision: 2 })],
      deletedItemIds: ['item-2'],
      categories: [
        { id: 1, name: 'Drinks' },
        { id: 2, name: 'Food' },
      ],
      deletedCategoryIds: [],
      locations: [],
      deletedLocationIds: [],
      settings: {},
      deletedSettingKeys: ['householdSize'],
      shoppingListChanged: false,
    });
  });

  it('a deleted then re-created item comes as present, not deleted', async () => {
    await api('DELETE', '/api/inventory/items/item-0');
    await api('PUT', '/api/inventory/items/item-0', itemBody({ name: 'Back again' }));
    const delta = (await api('GET', '/api/inventory/changes?since=2')).body;
    expect(delta.items.map((i: { name: string }) => i.name)).toEqual(['Back again']);
    expect(delta.deletedItemIds).toEqual([]);
  });

  it.each([
    [
      'a body that references a category it does not contain',
      { items: [itemBody({ id: 'x', categoryId: 9 })] },
    ],
    ['two items with one id', { items: [itemBody({ id: 'x' }), itemBody({ id: 'x' })] }],
    [
      'two categories with one name',
      {
        categories: [
          { id: 1, name: 'A' },
          { id: 2, name: 'a' },
        ],
      },
    ],
    ['a category without id', { categories: [{ name: 'A' }] }],
    ['an item without id', { items: [itemBody()] }],
    ['the id of another inventory', { inventoryId: '00000000-0000-4000-8000-000000000000' }],
    ['an unknown field', { colour: 'red' }],
    ['no settings', { settings: undefined }],
    ['a negative price', { items: [itemBody({ id: 'x', unitPrice: -1 })] }],
  ])('PUT with %s is 400 and leaves the inventory as it was', async (_, overrides) => {
    const before = (await api('GET', '/api/inventory')).body;
    const res = await api('PUT', '/api/inventory', { ...wholeInventory(1), ...overrides });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect((await api('GET', '/api/inventory')).body).toEqual(before);
  });

  it('PUT /api/inventory takes more than 1 MB, other routes do not; over 16 MB is 413', async () => {
    const big = wholeInventory(2000, { settings: {} });
    for (const item of big.items) item.notes = 'n'.repeat(900);
    expect(JSON.stringify(big).length).toBeGreaterThan(2 * 1024 * 1024);
    const res = await api('PUT', '/api/inventory', big);
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(2000);
    const tooBigItem = await api(
      'PUT',
      '/api/inventory/items/x',
      itemBody({ notes: 'n'.repeat(1_100_000) }),
    );
    expect(tooBigItem.status).toBe(413);
    const huge = { ...big, items: big.items.map((i) => ({ ...i, notes: 'n'.repeat(3999) })) };
    huge.items = [1, 2, 3].flatMap((n) =>
      huge.items.map((i: any) => ({ ...i, id: `${i.id}-${n}` })),
    );
    const tooBig = await api('PUT', '/api/inventory', huge);
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.code).toBe('payload_too_large');
    await api('PUT', '/api/inventory', wholeInventory(1));
  });

  it.each([
    ['missing', ''],
    ['not a number', '?since=abc'],
    ['negative', '?since=-1'],
    ['fractional', '?since=1.5'],
    ['in the future', '?since=100000'],
  ])('changes with `since` %s is 400', async (_, query) => {
    const res = await api('GET', `/api/inventory/changes${query}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.message).toContain('since');
  });

  it('after 90 days the history is pruned: old `since` is 410, the current one still works', async () => {
    const start = (await api('GET', '/api/inventory')).body.revision;
    await api('PATCH', '/api/inventory/items/item-0', { notes: 'before the gap' });
    t.clock.advance(91 * DAY);
    Object.assign(anna, await login(t.app, 'anna', 'anna-password')); // the old token expired
    await api('PATCH', '/api/inventory/items/item-0', { notes: 'after the gap' });
    const current = (await api('GET', '/api/inventory')).body.revision;
    expect(await t.app.larder.inventory.pruneHistory()).toBeGreaterThan(0);
    const stale = await api('GET', `/api/inventory/changes?since=${start}`);
    expect(stale.status).toBe(410);
    expect(stale.body.code).toBe('full_sync_required');
    const fresh = await api('GET', `/api/inventory/changes?since=${current - 1}`);
    expect(fresh.status).toBe(200);
    expect(fresh.body.items[0].notes).toBe('after the gap');
  });

  it('changes with the inventoryId of a previous inventory is 410', async () => {
    const other = '00000000-0000-4000-8000-000000000000';
    const res = await api('GET', `/api/inventory/changes?since=0&inventoryId=${other}`);
    expect(res.status).toBe(410);
    const revision = (await api('GET', '/api/inventory')).body.revision;
    const own = await api(
      'GET',
      `/api/inventory/changes?since=${revision}&inventoryId=${anna.inventoryId}`,
    );
    expect(own.status).toBe(200);
  });
});
