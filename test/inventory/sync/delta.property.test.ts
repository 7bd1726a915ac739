import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { call, share } from '#test/inventory/helpers.js';

/** A client that only ever applies deltas from /changes, starting from one snapshot. */
class DeltaClient {
  revision = 0;
  name = '';
  items = new Map<string, unknown>();
  categories = new Map<number, unknown>();
  locations = new Map<number, unknown>();
  settings = new Map<string, string>();

  load(snapshot: any): void {
    this.revision = snapshot.revision;
    this.name = snapshot.name;
    this.items = new Map(snapshot.items.map((i: any) => [i.id, i]));
    this.categories = new Map(snapshot.categories.map((c: any) => [c.id, c]));
    this.locations = new Map(snapshot.locations.map((l: any) => [l.id, l]));
    this.settings = new Map(Object.entries(snapshot.settings));
  }

  apply(delta: any): void {
    for (const item of delta.items) this.items.set(item.id, item);
    for (const id of delta.deletedItemIds) this.items.delete(id);
    for (const c of delta.categories) this.categories.set(c.id, c);
    for (const id of delta.deletedCategoryIds) this.categories.delete(id);
    for (const l of delta.locations) this.locations.set(l.id, l);
    for (const id of delta.deletedLocationIds) this.locations.delete(id);
    for (const [key, value] of Object.entries(delta.settings))
      this.settings.set(key, value as string);
    for (const key of delta.deletedSettingKeys) this.settings.delete(key);
    this.name = delta.name;
    this.revision = delta.revision;
  }

  view() {
    const sorted = <K, V>(m: Map<K, V>) =>
      [...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, v]) => v);
    return {
      revision: this.revision,
      name: this.name,
      items: sorted(this.items),
      categories: sorted(this.categories),
      locations: sorted(this.locations),
      settings: Object.fromEntries([...this.settings.entries()].sort()),
    };
  }
}

const itemId = fc.constantFrom('a', 'b', 'c', 'd');
const refId = fc.integer({ min: 1, max: 3 });
const label = fc.constantFrom('Food', 'food', 'Drinks', 'Tools', 'Misc');
const itemFields = fc.record({
  name: fc.constantFrom('Rice', 'Beans', 'Water'),
  categoryId: refId,
  locationId: refId,
  quantity: fc.double({ min: 0, max: 100, noNaN: true }),
  unit: fc.constantFrom('kg', 'pcs'),
  unitPrice: fc.constantFrom(0, 0.5, 2.25),
  kcalPerKg: fc.option(fc.integer({ min: 0, max: 9000 })),
  expiryDate: fc.option(fc.constantFrom('2026-03-01', '2027-12-31')),
  notes: fc.string({ maxLength: 5 }),
  lastUpdated: fc.integer({ min: 0, max: 20 }),
});
const client = fc.constantFrom<0 | 1>(0, 1);
const operation = fc.oneof(
  fc.record({ kind: fc.constant('putItem' as const), by: client, id: itemId, body: itemFields }),
  fc.record({ kind: fc.constant('postItem' as const), by: client, id: itemId, body: itemFields }),
  fc.record({
    kind: fc.constant('patchItem' as const),
    by: client,
    id: itemId,
    body: fc.record(
      {
        quantity: fc.integer({ min: 0, max: 9 }),
        categoryId: refId,
        lastUpdated: fc.integer({ min: 0, max: 20 }),
      },
      { requiredKeys: [] },
    ),
  }),
  fc.record({ kind: fc.constant('deleteItem' as const), by: client, id: itemId }),
  fc.record({
    kind: fc.constantFrom('postNamed' as const, 'putNamed' as const, 'deleteNamed' as const),
    by: client,
    table: fc.constantFrom('categories', 'locations'),
    id: refId,
    name: label,
  }),
  fc.record({
    kind: fc.constant('putSetting' as const),
    by: client,
    key: fc.constantFrom('x', 'y'),
    value: fc.string({ maxLength: 3 }),
  }),
  fc.record({
    kind: fc.constant('deleteSetting' as const),
    by: client,
    key: fc.constantFrom('x', 'y'),
  }),
  fc.record({
    kind: fc.constant('replace' as const),
    by: client,
    named: fc.subarray([1, 2, 3], { minLength: 1 }),
    items: fc.uniqueArray(fc.record({ id: itemId, body: itemFields }), {
      selector: (i) => i.id,
      maxLength: 3,
    }),
  }),
  fc.record({ kind: fc.constant('observerSync' as const) }),
);
type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;

/** Categories and locations (1-3 unless fewer are given) plus items pointing at them. */
function wholeInventory(items: { id: string; body: any }[], named = [1, 2, 3]) {
  const pick = (id: number) => (named.includes(id) ? id : named[0]!);
  return {
    categories: named.map((id) => ({ id, name: `C${id}` })),
    locations: named.map((id) => ({ id, name: `L${id}` })),
    settings: { x: 'start' },
    items: items.map((i) => ({
      id: i.id,
      ...i.body,
      categoryId: pick(i.body.categoryId),
      locationId: pick(i.body.locationId),
    })),
  };
}
const startItems = fc.uniqueArray(fc.record({ id: itemId, body: itemFields }), {
  selector: (i) => i.id,
  minLength: 2,
  maxLength: 4,
});

describe.each(DIALECTS)('delta sync property (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const clients = t.users('anna', 'ben');
  beforeAll(() => share(t.app, t.admin, ...clients));

  async function perform(op: Operation, observer: DeltaClient): Promise<number> {
    if (op.kind === 'observerSync') {
      const res = await call(
        t.app,
        clients[0],
        'GET',
        `/api/inventory/changes?since=${observer.revision}`,
      );
      observer.apply(res.body);
      return res.status;
    }
    const who = clients[op.by];
    switch (op.kind) {
      case 'putItem':
        return (await call(t.app, who, 'PUT', `/api/inventory/items/${op.id}`, op.body)).status;
      case 'postItem':
        return (await call(t.app, who, 'POST', '/api/inventory/items', { id: op.id, ...op.body }))
          .status;
      case 'patchItem':
        return (await call(t.app, who, 'PATCH', `/api/inventory/items/${op.id}`, op.body)).status;
      case 'deleteItem':
        return (await call(t.app, who, 'DELETE', `/api/inventory/items/${op.id}`)).status;
      case 'postNamed':
        return (
          await call(t.app, who, 'POST', `/api/inventory/${op.table}`, { id: op.id, name: op.name })
        ).status;
      case 'putNamed':
        return (
          await call(t.app, who, 'PUT', `/api/inventory/${op.table}/${op.id}`, { name: op.name })
        ).status;
      case 'deleteNamed':
        return (await call(t.app, who, 'DELETE', `/api/inventory/${op.table}/${op.id}`)).status;
      case 'putSetting':
        return (await call(t.app, who, 'PUT', '/api/inventory/settings', { [op.key]: op.value }))
          .status;
      case 'deleteSetting':
        return (await call(t.app, who, 'DELETE', `/api/inventory/settings/${op.key}`)).status;
      case 'replace':
        return (await call(t.app, who, 'PUT', '/api/inventory', wholeInventory(op.items, op.named)))
          .status;
    }
  }

  it('a client applying only deltas ends equal to the full snapshot', async () => {
    await fc.assert(
      fc.asyncProperty(
        startItems,
        fc.array(operation, { minLength: 5, maxLength: 30 }),
        async (start, ops) => {
          expect(
            (await call(t.app, clients[0], 'PUT', '/api/inventory', wholeInventory(start))).status,
          ).toBe(200);
          const observer = new DeltaClient();
          observer.load((await call(t.app, clients[1], 'GET', '/api/inventory')).body);
          for (const op of ops) {
            const status = await perform(op, observer);
            expect([200, 201, 204, 400, 404, 409]).toContain(status);
          }
          const delta = await call(
            t.app,
            clients[0],
            'GET',
            `/api/inventory/changes?since=${observer.revision}`,
          );
          expect(delta.status).toBe(200);
          observer.apply(delta.body);
          const { inventoryId: _id, ...snapshot } = (
            await call(t.app, clients[1], 'GET', '/api/inventory')
          ).body;
          expect(observer.view()).toEqual(snapshot);
        },
      ),
      { numRuns: 10 },
    );
  });
});
