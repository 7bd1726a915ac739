import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { call, callsAs, itemBody, seedBasics } from '#test/inventory/helpers.js';

const ID = '6f1c1e8e-3f43-4c5a-9d56-0d7c2b1e9a11';

describe.each(DIALECTS)('inventory items (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const anna = t.user('anna');
  const api = callsAs(t, anna);

  beforeAll(() => seedBasics(t.app, anna));

  it('requires a token', async () => {
    const res = await call(t.app, null, 'GET', '/api/inventory/items');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
  });

  it('creates with a client id, reads it back, and a repeated POST is a no-op 200', async () => {
    const created = await api('POST', '/api/inventory/items', itemBody({ id: ID }));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: ID, ...itemBody(), revision: expect.any(Number) });
    const again = await api('POST', '/api/inventory/items', itemBody({ id: ID }));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(created.body);
    expect((await api('GET', `/api/inventory/items/${ID}`)).body).toEqual(created.body);
    const list = await api('GET', '/api/inventory/items');
    expect(list.body).toEqual([created.body]);
  });

  it('POST of an existing id with other content is 409 carrying the stored item', async () => {
    const res = await api('POST', '/api/inventory/items', itemBody({ id: ID, name: 'Beans' }));
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('conflict');
    expect(res.body.item.name).toBe('Rice');
  });

  it('POST without id gets a server UUID; optional fields default', async () => {
    const res = await api('POST', '/api/inventory/items', {
      name: 'Salt',
      categoryId: 1,
      locationId: 1,
      quantity: 1,
      unit: 'kg',
      unitPrice: 0.5,
    });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body).toMatchObject({ kcalPerKg: null, expiryDate: null, notes: '' });
    expect(res.body.lastUpdated).toBeGreaterThan(0);
  });

  it('PUT creates (201) then replaces (200); PATCH changes only what it sends', async () => {
    const id = 'local-42';
    const created = await api('PUT', `/api/inventory/items/${id}`, itemBody({ name: 'Oats' }));
    expect(created.status).toBe(201);
    const replaced = await api(
      'PUT',
      `/api/inventory/items/${id}`,
      itemBody({ name: 'Oats', quantity: 5, lastUpdated: 2_000 }),
    );
    expect(replaced.status).toBe(200);
    expect(replaced.body.quantity).toBe(5);
    expect(replaced.body.revision).toBeGreaterThan(created.body.revision);
    const patched = await api('PATCH', `/api/inventory/items/${id}`, {
      notes: 'top shelf',
      expiryDate: null,
      lastUpdated: 3_000,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'Oats',
      quantity: 5,
      notes: 'top shelf',
      expiryDate: null,
      lastUpdated: 3_000,
    });
  });

  it('refuses a write older than the stored one with 409 stale_update and the current item', async () => {
    const id = 'stale-1';
    await api('PUT', `/api/inventory/items/${id}`, itemBody({ lastUpdated: 5_000, quantity: 9 }));
    for (const [method, payload] of [
      ['PUT', itemBody({ lastUpdated: 4_999, quantity: 1 })],
      ['PATCH', { quantity: 1, lastUpdated: 4_000 }],
    ] as const) {
      const res = await api(method, `/api/inventory/items/${id}`, payload);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('stale_update');
      expect(res.body.item).toMatchObject({ id, quantity: 9, lastUpdated: 5_000 });
    }
    const del = await api('DELETE', `/api/inventory/items/${id}?lastUpdated=4000`);
    expect(del.status).toBe(409);
    expect(del.body.code).toBe('stale_update');
    expect((await api('GET', `/api/inventory/items/${id}`)).body.quantity).toBe(9);
    const equal = await api('PATCH', `/api/inventory/items/${id}`, {
      quantity: 2,
      lastUpdated: 5_000,
    });
    expect(equal.status).toBe(200);
  });

  it('DELETE is idempotent; a deleted item is 404 to read and PATCH', async () => {
    await api('PUT', '/api/inventory/items/gone-1', itemBody());
    expect((await api('DELETE', '/api/inventory/items/gone-1')).status).toBe(204);
    expect((await api('DELETE', '/api/inventory/items/gone-1')).status).toBe(204);
    expect((await api('GET', '/api/inventory/items/gone-1')).status).toBe(404);
    const patch = await api('PATCH', '/api/inventory/items/gone-1', { quantity: 1 });
    expect(patch.status).toBe(404);
    expect(patch.body.code).toBe('not_found');
  });

  const badBodies: [string, Record<string, unknown>, string][] = [
    ['an unknown field', itemBody({ colour: 'red' }), 'colour'],
    ['a quantity under -10^12', itemBody({ quantity: -1e13 }), 'quantity'],
    ['a quantity over 10^12', itemBody({ quantity: 1e13 }), 'quantity'],
    ['a negative price', itemBody({ unitPrice: -0.01 }), 'unitPrice'],
    ['a quantity given as text', itemBody({ quantity: '3' }), 'quantity'],
    ['an impossible date', itemBody({ expiryDate: '2026-02-30' }), 'expiryDate'],
    ['a date in another format', itemBody({ expiryDate: '31.01.2030' }), 'expiryDate'],
    ['a fractional kcalPerKg', itemBody({ kcalPerKg: 1.5 }), 'kcalPerKg'],
    ['an empty name', itemBody({ name: '' }), 'name'],
    ['a missing categoryId', { ...itemBody(), categoryId: undefined }, 'categoryId'],
    ['a category of no one', itemBody({ categoryId: 99 }), 'categoryId'],
    ['a location of no one', itemBody({ locationId: 99 }), 'locationId'],
    ['a body id that differs from the path', itemBody({ id: 'other' }), 'id'],
  ];
  it.each(badBodies)(
    'PUT with %s is 400 naming the field and writes nothing',
    async (_, body, field) => {
      const before = (await api('GET', '/api/inventory')).body.revision;
      const res = await api('PUT', '/api/inventory/items/bad-1', body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.message).toContain(field);
      expect((await api('GET', '/api/inventory/items/bad-1')).status).toBe(404);
      expect((await api('GET', '/api/inventory')).body.revision).toBe(before);
    },
  );

  it('a quantity written as 1e400 in the JSON text (Infinity) is 400', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/inventory/items/inf-1',
      headers: { ...anna.headers, 'content-type': 'application/json' },
      payload: JSON.stringify(itemBody()).replace('"quantity":2', '"quantity":1e400'),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('quantity');
  });

  it('a lastUpdated past the largest date is 400 and writes nothing (not a 500 on PostgreSQL)', async () => {
    const before = (await api('GET', '/api/inventory')).body.revision;
    for (const lastUpdated of [1e300, 2 ** 63, 8640000000000001]) {
      const res = await api('PUT', '/api/inventory/items/far-future', itemBody({ lastUpdated }));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed' });
      expect(res.body.message).toContain('body.lastUpdated');
    }
    const patch = await api('PATCH', `/api/inventory/items/${ID}`, { lastUpdated: 1e300 });
    expect(patch.status).toBe(400);
    expect((await api('DELETE', `/api/inventory/items/${ID}?lastUpdated=1e300`)).status).toBe(400);
    expect((await api('GET', '/api/inventory/items/far-future')).status).toBe(404);
    expect((await api('GET', '/api/inventory')).body.revision).toBe(before);
    const latest = await api(
      'PUT',
      '/api/inventory/items/far-future',
      itemBody({ lastUpdated: 8640000000000000 }),
    );
    expect(latest.status).toBe(201);
    await api('DELETE', '/api/inventory/items/far-future');
  });

  it('a NUL character in any text is 400 naming the field, on every dialect', async () => {
    const before = (await api('GET', '/api/inventory')).body.revision;
    const cases: [string, string, unknown, string][] = [
      ['PUT', '/api/inventory/items/nul-1', itemBody({ name: 'Rice\u0000' }), 'body.name'],
      ['PATCH', `/api/inventory/items/${ID}`, { notes: 'a\u0000b' }, 'body.notes'],
      ['POST', '/api/inventory/categories', { name: 'Fo\u0000od' }, 'body.name'],
      ['PUT', '/api/inventory/settings', { householdSize: '2\u0000' }, 'body.householdSize'],
      ['PUT', '/api/inventory/settings', { 'a\u0000b': '2' }, 'body.a'],
    ];
    for (const [method, url, payload, field] of cases) {
      const res = await api(method as 'PUT', url, payload);
      expect(res.status, `${method} ${url}`).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.message).toContain(field);
    }
    const path = await api('DELETE', '/api/inventory/settings/a%00b');
    expect(path.status).toBe(400);
    expect(path.body.message).toContain('params.key');
    const query = await api('GET', '/api/inventory/changes?since=0&inventoryId=a%00b');
    expect(query.status).toBe(400);
    expect(query.body.message).toContain('querystring.inventoryId');
    expect((await api('GET', '/api/inventory')).body.revision).toBe(before);
  });

  it('rejects bad ids in the path and bad query values', async () => {
    expect((await api('GET', '/api/inventory/items/has%20space')).status).toBe(400);
    expect((await api('DELETE', '/api/inventory/items/x?lastUpdated=soon')).status).toBe(400);
    expect((await api('PATCH', `/api/inventory/items/${ID}`, { revision: 'x' })).status).toBe(400);
  });
});
