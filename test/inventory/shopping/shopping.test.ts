import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, type Session } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { openSocket, type TestSocket } from '#test/helpers/ws.js';
import { callsAs, itemBody, seedBasics, share, updateFor } from '#test/inventory/helpers.js';
import { journalOf } from '#test/inventory/journal/journal-helpers.js';

describe.each(DIALECTS)('the shopping list (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const [anna, ben] = t.users('anna', 'ben');
  const api = (who: Session = anna) => callsAs(t, who);
  const list = async () => (await api()('GET', '/api/inventory/shopping-list')).body.entries;
  const quantityOf = async (id: string) =>
    (await api()('GET', `/api/inventory/items/${id}`)).body.quantity;
  /** a manual entry of anna's for item `itemId` */
  const addEntry = async (name: string, itemId: string, quantity: number) =>
    (await api()('POST', '/api/inventory/shopping-list', { name, itemId, quantity })).body;
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    await share(t.app, t.admin, anna, ben);
    await seedBasics(t.app, anna);
    for (const [id, quantity] of [
      ['milk', 1],
      ['flour', 5],
    ] as const) {
      const res = await api()(
        'PUT',
        `/api/inventory/items/${id}`,
        itemBody({ name: id, quantity, unit: 'l' }),
      );
      expect(res.status).toBe(201);
    }
  });
  afterEach(async () => {
    await Promise.all(sockets.splice(0).map((s) => s.close()));
  });

  it('an item below its minimum is an entry of target − current; at or above it is none', async () => {
    await api()('PUT', '/api/inventory/items/milk/stock-level', {
      minQuantity: 2,
      targetQuantity: 6,
    });
    await api()('PUT', '/api/inventory/items/flour/stock-level', { minQuantity: 5 });
    expect(await list()).toEqual([
      {
        id: 'item:milk',
        itemId: 'milk',
        name: 'milk',
        unit: 'l',
        quantity: 5,
        source: 'below_minimum',
        checked: false,
      },
    ]);
  });

  it('manual entries: add, check, rename, remove; bad input 400, unknown 404', async () => {
    const added = await api(ben)('POST', '/api/inventory/shopping-list', {
      name: ' Bread ',
      quantity: 2,
    });
    expect(added).toMatchObject({
      status: 201,
      body: { name: 'Bread', quantity: 2, unit: '', itemId: null, source: 'manual' },
    });
    expect(added.body.checked).toBe(false);
    const id = added.body.id;
    const patched = await api()('PATCH', `/api/inventory/shopping-list/${id}`, {
      checked: true,
      name: 'Rye bread',
    });
    expect(patched.body).toMatchObject({ id, name: 'Rye bread', checked: true, quantity: 2 });
    expect((await list()).at(-1)).toEqual(patched.body);
    for (const body of [
      { name: '' },
      { name: '   ' },
      { name: 'x'.repeat(201) },

      { quantity: -1 },
      { unit: 'x'.repeat(51), name: 'a' },
      { name: 'a', itemId: 'no such item' },
      { name: 'a', extra: 1 },
    ]) {
      const res = await api()('POST', '/api/inventory/shopping-list', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    }
    expect(
      (await api()('POST', '/api/inventory/shopping-list', { name: 'a', itemId: 'nope' })).status,
    ).toBe(400);
    expect(
      (await api()('PATCH', '/api/inventory/shopping-list/nope', { checked: true })).status,
    ).toBe(404);
    expect(
      (await api()('PATCH', `/api/inventory/shopping-list/${id}`, { checked: 'yes' })).status,
    ).toBe(400);
    expect((await api()('DELETE', `/api/inventory/shopping-list/${id}`)).status).toBe(204);
    expect((await api()('DELETE', `/api/inventory/shopping-list/${id}`)).status).toBe(404);
    expect((await list()).map((e: any) => e.id)).toEqual(['item:milk']);
  });

  it("a below-minimum entry: its mark is stored, its name and quantity are its item's, it cannot be removed", async () => {
    const checked = await api()('PATCH', '/api/inventory/shopping-list/item:milk', {
      checked: true,
    });
    expect(checked.body).toMatchObject({ id: 'item:milk', checked: true, quantity: 5 });
    expect((await list())[0].checked).toBe(true);
    expect(
      (await api()('PATCH', '/api/inventory/shopping-list/item:milk', { quantity: 3 })).status,
    ).toBe(400);
    expect(
      (await api()('PATCH', '/api/inventory/shopping-list/item:flour', { checked: true })).status,
    ).toBe(404);
    const del = await api()('DELETE', '/api/inventory/shopping-list/item:milk');
    expect(del).toMatchObject({ status: 409, body: { code: 'below_minimum' } });
    expect((await api()('DELETE', '/api/inventory/shopping-list/item:flour')).status).toBe(404);
    const zero = await api()('POST', '/api/inventory/shopping-list/item:milk/bought', {
      quantity: 0,
    });
    expect(zero.status).toBe(400);
  });

  it('bought adds to the item as a journaled adjust (source shopping) and takes the entry off', async () => {
    const socket = await openSocket(t.app, ben.token);
    sockets.push(socket);
    await socket.next('hello');
    const before = (await api()('GET', '/api/inventory')).body.revision;
    const res = await api()('POST', '/api/inventory/shopping-list/item:milk/bought', {});
    expect(res.status).toBe(200);
    expect(res.body.item).toMatchObject({ id: 'milk', quantity: 6 });
    await updateFor(socket, res.body.item.revision);
    expect(await list()).toEqual([]);
    const [row] = await journalOf(t.app, anna, '', 'milk');
    expect(row).toMatchObject({
      source: 'shopping',
      kind: 'adjust',
      delta: 5,
      quantityAfter: 6,
      opId: null,
      username: 'anna',
    });
    const changes = (await api()('GET', `/api/inventory/changes?since=${before}`)).body;
    expect(changes.shoppingListChanged).toBe(true);
    // not below any more: without a quantity there is nothing to add
    const again = await api()('POST', '/api/inventory/shopping-list/item:milk/bought', {});
    expect(again).toMatchObject({ status: 409, body: { code: 'not_below_minimum' } });
    expect(await quantityOf('milk')).toBe(6);
  });

  it('bought of a manual entry: to its item, or 409 no_item unless createItem; then it is gone', async () => {
    const linked = await addEntry('More flour', 'flour', 2);
    expect(linked.unit).toBe('l');
    const res = await api(ben)('POST', `/api/inventory/shopping-list/${linked.id}/bought`, {
      quantity: 3,
    });
    expect(res.body.item.quantity).toBe(8);
    expect(
      (await api()('POST', `/api/inventory/shopping-list/${linked.id}/bought`, {})).status,
    ).toBe(404);
    expect(await quantityOf('flour')).toBe(8);

    const loose = (await api()('POST', '/api/inventory/shopping-list', { name: 'Candles' })).body;
    const refused = await api()('POST', `/api/inventory/shopping-list/${loose.id}/bought`, {});
    expect(refused).toMatchObject({ status: 409, body: { code: 'no_item' } });
    const badItem = await api()('POST', `/api/inventory/shopping-list/${loose.id}/bought`, {
      createItem: itemBody({ id: 'candles', categoryId: 99 }),
    });
    expect(badItem.status).toBe(400);
    expect((await api()('GET', '/api/inventory/items/candles')).status).toBe(404);
    const created = await api()('POST', `/api/inventory/shopping-list/${loose.id}/bought`, {
      createItem: itemBody({ id: 'candles', name: 'Candles', quantity: 12, unit: 'pcs' }),
    });
    expect(created.status).toBe(200);
    expect(created.body.item).toMatchObject({ id: 'candles', quantity: 12 });
    const [row] = await journalOf(t.app, anna, '', 'candles');
    expect(row).toMatchObject({ source: 'shopping', kind: 'create', delta: 12 });
    expect((await list()).map((e: any) => e.id)).not.toContain(loose.id);
  });

  it('a manual entry of a deleted item keeps its name, without the item', async () => {
    await api()('PUT', '/api/inventory/items/tea', itemBody({ name: 'Tea' }));
    const entry = await addEntry('Tea', 'tea', 1);
    expect((await api()('DELETE', '/api/inventory/items/tea')).status).toBe(204);
    expect((await list()).find((e: any) => e.id === entry.id)).toMatchObject({
      name: 'Tea',
      itemId: null,
    });
    const res = await api()('POST', `/api/inventory/shopping-list/${entry.id}/bought`, {});
    expect(res).toMatchObject({ status: 409, body: { code: 'no_item' } });
    await api()('DELETE', `/api/inventory/shopping-list/${entry.id}`);
  });

  it('the changes say shoppingListChanged only when the list may have changed', async () => {
    const revision = async () => (await api()('GET', '/api/inventory')).body.revision;
    const changed = async (since: number) =>
      (await api()('GET', `/api/inventory/changes?since=${since}`)).body.shoppingListChanged;
    await api()('PUT', '/api/inventory/items/flour/stock-level', { minQuantity: 5 });
    const r0 = await revision();
    await api()('PUT', '/api/inventory/items/soap', itemBody({ name: 'Soap' }));
    expect(await changed(r0)).toBe(false);
    // an item with a minimum stock changed: its entry may have come or gone
    const r1 = await revision();
    await api()('PATCH', '/api/inventory/items/flour', { quantity: 1 });
    expect(await changed(r1)).toBe(true);
    const r2 = await revision();
    await api()('PUT', '/api/inventory/items/soap/stock-level', { minQuantity: 1 });
    expect(await changed(r2)).toBe(true);
    // the offline queue's pull has the same shape
    const pulled = await api(ben)('POST', '/api/inventory/sync', { since: r2, ops: [] });
    expect(pulled.body.changes.shoppingListChanged).toBe(true);
    const r3 = await revision();
    const quiet = await api(ben)('POST', '/api/inventory/sync', { since: r3, ops: [] });
    expect(quiet.body.changes.shoppingListChanged).toBe(false);
  });

  it('two members buying one entry at once: each adds theirs once, both journaled', async () => {
    await api()(
      'PUT',
      '/api/inventory/items/eggs',
      itemBody({ name: 'Eggs', quantity: 0, unit: 'pcs' }),
    );
    await api()('PUT', '/api/inventory/items/eggs/stock-level', {
      minQuantity: 6,
      targetQuantity: 12,
    });
    const answers = await Promise.all([
      api()('POST', '/api/inventory/shopping-list/item:eggs/bought', { quantity: 10 }),
      api(ben)('POST', '/api/inventory/shopping-list/item:eggs/bought', { quantity: 6 }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(await quantityOf('eggs')).toBe(16);
    const rows = await journalOf(t.app, anna, '', 'eggs');
    expect(
      rows
        .filter((r) => r.source === 'shopping')
        .map((r) => r.delta)
        .sort(),
    ).toEqual([10, 6].sort());
  });
});

describe.each(DIALECTS)('the shopping list bound (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const [anna] = t.users('anna');

  it('past 500 manual entries: 422 shopping_list_full, nothing added', async () => {
    const api = callsAs(t, anna);
    for (let i = 0; i < 500; i++) {
      expect((await api('POST', '/api/inventory/shopping-list', { name: `e${i}` })).status).toBe(
        201,
      );
    }
    const res = await api('POST', '/api/inventory/shopping-list', { name: 'one more' });
    expect(res).toMatchObject({
      status: 422,
      body: { code: 'shopping_list_full', maxEntries: 500 },
    });
    expect((await api('GET', '/api/inventory/shopping-list')).body.entries).toHaveLength(500);
  }, 120_000);
});
