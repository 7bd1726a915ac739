import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { openSocket, type TestSocket } from '#test/helpers/ws.js';
import { call, itemBody, updateFor } from '#test/inventory/helpers.js';
import { importBody, snapshotByNames } from '#test/inventory/transfer-helpers.js';

describe.each(DIALECTS)('inventory export and import (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const [anna, ben, cleo, dora] = t.users('anna', 'ben', 'cleo', 'dora');
  const sockets: TestSocket[] = [];
  afterEach(async () => {
    await Promise.all(sockets.splice(0).map((s) => s.close()));
  });

  beforeAll(async () => {
    await call(t.app, anna, 'PUT', '/api/inventory/categories/1', { name: 'Food' });
    await call(t.app, anna, 'PUT', '/api/inventory/categories/7', { name: 'Medicine' });
    await call(t.app, anna, 'PUT', '/api/inventory/categories/9', { name: 'Unused' });
    await call(t.app, anna, 'PUT', '/api/inventory/locations/1', { name: 'Cellar' });
    await call(t.app, anna, 'PUT', '/api/inventory/locations/4', { name: 'Bathroom' });
    const items = [
      itemBody({ id: 'rice', name: 'Rice, long grain', notes: 'Say "hello"\nsecond line' }),
      itemBody({ id: 'aspirin', name: 'Aspirin', categoryId: 7, locationId: 4, unit: 'Stück' }),
      itemBody({ id: 'water', name: 'Wasser; still', kcalPerKg: null, expiryDate: null }),
    ];
    for (const item of items) {
      const res = await call(t.app, anna, 'PUT', `/api/inventory/items/${item.id}`, item);
      expect(res.status).toBe(201);
    }
  });

  it('CSV export: UTF-8 with BOM, CRLF, header row, names instead of ids, attachment', async () => {
    const res = await t.app.inject({
      url: '/api/inventory/export?format=csv',
      headers: anna.headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="?larder-inventory-\d{4}-\d{2}-\d{2}\.csv"?$/,
    );
    expect([...res.rawPayload.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = res.rawPayload.toString('utf8').slice(1);
    const lines = text.split('\r\n');
    expect(lines[0]).toBe(
      '"id","name","category","location","quantity","unit","unitPrice","kcalPerKg","expiryDate","notes","lastUpdated"',
    );
    expect(text).toContain(
      '"aspirin","Aspirin","Medicine","Bathroom",2,"Stück",1.5,3600,"2030-01-31",,1000\r\n',
    );
    expect(text).toContain('"Say ""hello""\nsecond line"');
    expect(text).toContain('"water","Wasser; still","Food","Cellar",2,"kg",1.5,,,,1000');
  });

  it('JSON export lists items by names, and every category and location', async () => {
    const res = await t.app.inject({
      url: '/api/inventory/export?format=json',
      headers: anna.headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toMatch(/filename="?larder-inventory-.*\.json/);
    const body = res.json();
    expect(body.categories).toEqual(['Food', 'Medicine', 'Unused']);
    expect(body.items.find((i: any) => i.id === 'aspirin')).toEqual({
      id: 'aspirin',
      name: 'Aspirin',
      category: 'Medicine',
      location: 'Bathroom',
      quantity: 2,
      unit: 'Stück',
      unitPrice: 1.5,
      kcalPerKg: 3600,
      expiryDate: '2030-01-31',
      notes: '',
      lastUpdated: 1000,
    });
  });

  it.each(['json', 'csv'])(
    'a %s export imported into another inventory gives an equal snapshot',
    async (format) => {
      const target = format === 'json' ? ben : cleo;
      // the target already has one of the names in another letter case: matched, not doubled
      await call(t.app, target, 'PUT', '/api/inventory/categories/3', { name: 'FOOD' });
      const exported = await t.app.inject({
        url: `/api/inventory/export?format=${format}`,
        headers: anna.headers,
      });
      const payload = format === 'json' ? exported.json() : exported.rawPayload.toString('utf8');
      const dry = await importBody(t.app, target, payload);
      expect(dry.statusCode, dry.body).toBe(200);
      expect(dry.json()).toMatchObject({ applied: false, created: 3, updated: 0 });
      expect(dry.json().categoriesCreated).toEqual(
        format === 'json' ? ['Medicine', 'Unused'] : ['Medicine'],
      );
      expect((await call(t.app, target, 'GET', '/api/inventory/items')).body).toEqual([]);

      const applied = await importBody(t.app, target, payload, '?apply=true');
      expect(applied.statusCode, applied.body).toBe(200);
      expect(applied.json()).toMatchObject({ applied: true, created: 3 });
      const source = await snapshotByNames(t.app, anna);
      const copy = await snapshotByNames(t.app, target);
      expect(copy.items).toEqual(
        source.items.map((i: any) => ({
          ...i,
          category: i.category === 'Food' ? 'FOOD' : i.category,
        })),
      );
      if (format === 'json') {
        expect(copy.categories).toEqual(['FOOD', 'Medicine', 'Unused']);
        expect(copy.locations).toEqual(source.locations);
      }
      // a second import of the same file changes nothing
      const again = await importBody(t.app, target, payload, '?apply=true');
      expect(again.json()).toMatchObject({ created: 0, updated: 0, unchanged: 3 });
    },
  );

  it('an applied import is one change: one revision, one inventoryUpdated to the members', async () => {
    const socket = await openSocket(t.app, dora.token);
    sockets.push(socket);
    await socket.next('hello');
    const before = (await call(t.app, dora, 'GET', '/api/inventory')).body.revision;
    const csv =
      'name,category,location,quantity,expiryDate\r\nBeans,Cans,Shelf,4,2031-02-03\nPeas,cans,shelf,1.5,\n';
    const res = await importBody(t.app, dora, csv, '?apply=true');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      created: 2,
      categoriesCreated: ['Cans'],
      locationsCreated: ['Shelf'],
    });
    expect(res.json().rows.map((r: any) => r.line)).toEqual([2, 3]);
    const after = await call(t.app, dora, 'GET', '/api/inventory');
    expect(after.body.revision).toBe(before + 1);
    expect(await updateFor(socket, before + 1)).toMatchObject({ inventoryId: dora.inventoryId });
    const changes = await call(t.app, dora, 'GET', `/api/inventory/changes?since=${before}`);
    expect(changes.status).toBe(200);
    expect(after.body.items.map((i: any) => [i.name, i.quantity, i.expiryDate])).toEqual(
      expect.arrayContaining([
        ['Beans', 4, '2031-02-03'],
        ['Peas', 1.5, null],
      ]),
    );
  });

  it('updates an item named by id and leaves the others', async () => {
    const csv = 'id,name,category,location,quantity\nrice,Rice,Food,Cellar,10\n';
    const res = await importBody(t.app, anna, csv, '?apply=true');
    expect(res.json()).toMatchObject({
      created: 0,
      updated: 1,
      rows: [{ line: 2, id: 'rice', action: 'update' }],
    });
    const items = (await call(t.app, anna, 'GET', '/api/inventory/items')).body;
    expect(items.find((i: any) => i.id === 'rice')).toMatchObject({ name: 'Rice', quantity: 10 });
    expect(items).toHaveLength(3);
  });

  it.each([
    [
      'a malformed row (unclosed quote)',
      'name,category,location,quantity\nA,B,C,1\n"Oops,B,C,1\n',
      /line 3/,
      '?apply=true',
    ],
    [
      'a row with too many cells',
      'name,category,location,quantity\nA,B,C,1\nA,B,C,1,extra\n',
      /line 3/,
      '',
    ],
    ['an unknown column', 'name,category,location,quantity,colour\nA,B,C,1,red\n', /colour/, ''],
    ['a missing column', 'name,category,quantity\nA,B,1\n', /location/, ''],
  ])('refuses %s with 400 and writes nothing', async (_name, csv, message, query) => {
    const before = await snapshotByNames(t.app, anna);
    const res = await importBody(t.app, anna, csv, query);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_failed', message });
    expect(await snapshotByNames(t.app, anna)).toEqual(before);
  });

  it('lists every bad row with its line and reason; nothing of the good rows is written', async () => {
    const before = await snapshotByNames(t.app, anna);
    const csv = [
      'name,category,location,quantity,expiryDate,kcalPerKg',
      'Good,Brand new category,Cellar,1,,',
      ',Food,Cellar,1,,',
      'Bad date,Food,Cellar,1,2030-02-30,',
      'Bad qty,Food,Cellar,-2e12,,',
      'Bad kcal,Food,Cellar,1,,12.5',
    ].join('\r\n');
    const res = await importBody(t.app, anna, csv, '?apply=true');
    expect(res.statusCode).toBe(400);
    expect(res.json().rows).toEqual([
      { line: 3, reason: 'name is missing' },
      { line: 4, reason: 'expiryDate must be a date YYYY-MM-DD (got "2030-02-30")' },
      {
        line: 5,
        reason: 'quantity must be a number from -1000000000000 to 1000000000000 (got "-2e12")',
      },
      { line: 6, reason: 'kcalPerKg must be a whole number' },
    ]);
    expect(await snapshotByNames(t.app, anna)).toEqual(before);
  });

  it('JSON: bad items are refused by position; wrong types and shapes are 400', async () => {
    const res = await importBody(t.app, anna, {
      items: [{ name: 'A', category: 'Food', location: 'Cellar', quantity: '2' }],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().rows).toEqual([
      {
        line: 1,
        reason: 'quantity must be a number from -1000000000000 to 1000000000000 (got "2")',
      },
    ]);
    expect((await importBody(t.app, anna, { nothing: true })).statusCode).toBe(400);
    const dup = await importBody(t.app, anna, [
      { id: 'x', name: 'A', category: 'Food', location: 'Cellar', quantity: 1 },
      { id: 'x', name: 'B', category: 'Food', location: 'Cellar', quantity: 1 },
    ]);
    expect(dup.json().rows).toEqual([{ line: 2, reason: 'id x is already on line 1' }]);
    const xml = await importBody(t.app, anna, '<items/>', '', 'application/xml');
    expect(xml.statusCode).toBe(415);
    expect(xml.json().code).toBe('unsupported_format');
  });

  it("accepts Grocy's /api/stock JSON", async () => {
    const stock = [
      {
        product_id: 12,
        amount: '3',
        amount_aggregated: '3',
        value: '4.5',
        best_before_date: '2027-05-01',
        amount_opened: '0',
        is_aggregated_amount: '0',
        product: {
          id: 12,
          name: 'Canned tomatoes',
          description: 'Chopped',
          location_id: 2,
          product_group_id: 5,
        },
      },
      {
        product_id: 13,
        amount: 2,
        amount_aggregated: 2,
        value: 0,
        best_before_date: '2999-12-31',
        product: { id: 13, name: 'Salt', location_id: 2, product_group_id: null },
      },
    ];
    const res = await importBody(t.app, cleo, stock, '?apply=true');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ source: 'grocy', created: 2 });
    const items = (await snapshotByNames(t.app, cleo)).items;
    expect(items.find((i: any) => i.id === 'grocy-12')).toMatchObject({
      name: 'Canned tomatoes',
      quantity: 3,
      unitPrice: 1.5,
      expiryDate: '2027-05-01',
      notes: 'Chopped',
      category: 'Grocy group 5',
      location: 'Grocy location 2',
    });
    expect(items.find((i: any) => i.id === 'grocy-13')).toMatchObject({
      expiryDate: null,
      category: 'Grocy',
    });
  });

  it('needs a signed-in user; a bad format is 400', async () => {
    expect((await t.app.inject({ url: '/api/inventory/export' })).statusCode).toBe(401);
    const bad = await t.app.inject({
      url: '/api/inventory/export?format=xls',
      headers: anna.headers,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('validation_failed');
  });
});
