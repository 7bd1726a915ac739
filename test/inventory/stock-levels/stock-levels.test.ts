import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { callsAs, itemBody, seedBasics, share } from '#test/inventory/helpers.js';
import { op } from '#test/inventory/offline-helpers.js';

describe.each(DIALECTS)('minimum stock (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const [anna, ben] = t.users('anna', 'ben');
  const api = (who = anna) => callsAs(t, who);
  const levels = async () => (await api()('GET', '/api/inventory/stock-levels')).body.levels;

  beforeAll(async () => {
    await share(t.app, t.admin, anna, ben);
    await seedBasics(t.app, anna);
    for (const id of ['rice', 'salt']) {
      expect(
        (await api()('PUT', `/api/inventory/items/${id}`, itemBody({ name: id, quantity: 1 })))
          .status,
      ).toBe(201);
    }
  });

  it('PUT sets it (target defaults to the minimum), GET lists it, DELETE removes it', async () => {
    const set = await api()('PUT', '/api/inventory/items/rice/stock-level', { minQuantity: 2 });
    expect(set).toEqual({
      status: 200,
      body: { itemId: 'rice', minQuantity: 2, targetQuantity: 2 },
    });
    const both = await api(ben)('PUT', '/api/inventory/items/salt/stock-level', {
      minQuantity: 0.5,
      targetQuantity: 3,
    });
    expect(both.body).toEqual({ itemId: 'salt', minQuantity: 0.5, targetQuantity: 3 });
    expect(await levels()).toEqual([
      { itemId: 'rice', minQuantity: 2, targetQuantity: 2 },
      { itemId: 'salt', minQuantity: 0.5, targetQuantity: 3 },
    ]);
    expect((await api()('DELETE', '/api/inventory/items/salt/stock-level')).status).toBe(204);
    expect((await api()('DELETE', '/api/inventory/items/salt/stock-level')).status).toBe(204);
    expect((await levels()).map((l: any) => l.itemId)).toEqual(['rice']);
  });

  it('bad input is 400, an unknown item 404; nothing is stored', async () => {
    const bad = [
      { minQuantity: -1 },
      { minQuantity: 3, targetQuantity: 2 },
      { minQuantity: 'x' },
      {},
      { minQuantity: 1, other: 1 },
      { minQuantity: 2e12 },
    ];
    for (const body of bad) {
      const res = await api()('PUT', '/api/inventory/items/salt/stock-level', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    }
    const unknown = await api()('PUT', '/api/inventory/items/nope/stock-level', { minQuantity: 1 });
    expect(unknown).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect((await levels()).map((l: any) => l.itemId)).toEqual(['rice']);
  });

  it('no app write erases it: item PUT, whole-inventory PUT, a queued whole-item update', async () => {
    await api()('PUT', '/api/inventory/items/rice/stock-level', {
      minQuantity: 2,
      targetQuantity: 5,
    });
    const wanted = { itemId: 'rice', minQuantity: 2, targetQuantity: 5 };
    const put = await api()(
      'PUT',
      '/api/inventory/items/rice',
      itemBody({ name: 'Rice', quantity: 4, lastUpdated: Date.now() }),
    );
    expect(put.status).toBe(200);
    expect(await levels()).toContainEqual(wanted);
    const queued = await api(ben)('POST', '/api/inventory/sync', {
      ops: [op('rice', 'update', itemBody({ name: 'Rice', quantity: 3 }), Date.now())],
    });
    expect(queued.body.results[0].status).toBe('applied');
    expect(await levels()).toContainEqual(wanted);
    const snapshot = (await api()('GET', '/api/inventory')).body;
    const whole = { ...snapshot, items: snapshot.items.map((i: any) => ({ ...i, quantity: 9 })) };
    expect((await api()('PUT', '/api/inventory', whole)).status).toBe(200);
    expect(await levels()).toContainEqual(wanted);
  });

  it('deleting the item deletes its level, by any path', async () => {
    for (const id of ['gone-rest', 'gone-queue']) {
      await api()('PUT', `/api/inventory/items/${id}`, itemBody({ name: id }));
      await api()('PUT', `/api/inventory/items/${id}/stock-level`, { minQuantity: 1 });
    }
    expect((await api()('DELETE', '/api/inventory/items/gone-rest')).status).toBe(204);
    await api(ben)('POST', '/api/inventory/sync', {
      ops: [op('gone-queue', 'delete', undefined, Date.now())],
    });
    const ids = (await levels()).map((l: any) => l.itemId);
    expect(ids).not.toContain('gone-rest');
    expect(ids).not.toContain('gone-queue');
    // a whole-inventory PUT without the item deletes it too
    await api()('PUT', '/api/inventory/items/gone-put', itemBody({ name: 'gone-put' }));
    await api()('PUT', '/api/inventory/items/gone-put/stock-level', { minQuantity: 1 });
    const snapshot = (await api()('GET', '/api/inventory')).body;
    const whole = { ...snapshot, items: snapshot.items.filter((i: any) => i.id !== 'gone-put') };
    expect((await api()('PUT', '/api/inventory', whole)).status).toBe(200);
    expect((await levels()).map((l: any) => l.itemId)).not.toContain('gone-put');
  });

  it('a member of another inventory neither sees nor sets them', async () => {
    const other = await t.createUser('other');
    expect((await callsAs(t, other)('GET', '/api/inventory/stock-levels')).body.levels).toEqual([]);
    const res = await callsAs(t, other)('PUT', '/api/inventory/items/rice/stock-level', {
      minQuantity: 9,
    });
    expect(res.status).toBe(404);
  });
});
