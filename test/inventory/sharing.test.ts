import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { call, itemBody, share, wholeInventory } from './helpers.js';

describe.each(DIALECTS)('isolation and sharing (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const { admin } = t;
  const [anna, ben, cleo] = t.users('anna', 'ben', 'cleo');

  beforeAll(async () => {
    for (const who of [anna, ben]) {
      await call(t.app, who, 'PUT', '/api/inventory', wholeInventory(1));
      await call(
        t.app,
        who,
        'PUT',
        '/api/inventory/items/secret',
        itemBody({ name: `${who.username}'s` }),
      );
    }
  });

  it("nothing of one inventory is readable or writable through another's token", async () => {
    const bensItem = await call(t.app, ben, 'GET', '/api/inventory/items/secret');
    expect(bensItem.body.name).toBe("ben's");
    const annasView = await call(t.app, anna, 'GET', '/api/inventory/items/secret');
    expect(annasView.body.name).toBe("anna's");
    await call(t.app, anna, 'DELETE', '/api/inventory/items/secret');
    await call(t.app, anna, 'DELETE', '/api/inventory/categories/2');
    await call(t.app, anna, 'PATCH', '/api/inventory/items/item-0', { name: 'changed by anna' });
    const bens = (await call(t.app, ben, 'GET', '/api/inventory')).body;
    expect(bens.items.map((i: { name: string }) => i.name).sort()).toEqual(['Item 0', "ben's"]);
    expect(bens.categories).toHaveLength(2);
    expect((await call(t.app, anna, 'GET', '/api/inventory/items/secret')).status).toBe(404);
  });

  it('two members of one inventory see each other’s writes', async () => {
    await share(t.app, admin, anna, cleo);
    const byCleo = await call(
      t.app,
      cleo,
      'PUT',
      '/api/inventory/items/shared',
      itemBody({ name: 'Shared' }),
    );
    expect(byCleo.status).toBe(201);
    expect((await call(t.app, anna, 'GET', '/api/inventory/items/shared')).body.name).toBe(
      'Shared',
    );
    await call(t.app, anna, 'PATCH', '/api/inventory/items/shared', { quantity: 7 });
    const seenByCleo = (await call(t.app, cleo, 'GET', '/api/inventory')).body;
    expect(seenByCleo.inventoryId).toBe(anna.inventoryId);
    expect(seenByCleo.items.find((i: { id: string }) => i.id === 'shared').quantity).toBe(7);
  });

  it('parallel writes by two members each get their own revision; a delta holds them all', async () => {
    const start = (await call(t.app, anna, 'GET', '/api/inventory')).body.revision;
    const writes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(t.app, i % 2 ? anna : cleo, 'PUT', `/api/inventory/items/p-${i}`, itemBody()),
      ),
    );
    expect(writes.map((w) => w.status)).toEqual(Array(20).fill(201));
    const revisions = writes.map((w) => w.body.revision).sort((a, b) => a - b);
    expect(revisions).toEqual(Array.from({ length: 20 }, (_, i) => start + 1 + i));
    const delta = (await call(t.app, cleo, 'GET', `/api/inventory/changes?since=${start}`)).body;
    expect(delta.revision).toBe(start + 20);
    expect(delta.items).toHaveLength(20);
  });

  it('the admin statistics count items, categories, locations and changes', async () => {
    const stats = (await call(t.app, admin, 'GET', '/api/admin/stats/inventories')).body;
    const annas = stats.find((s: { inventoryId: string }) => s.inventoryId === anna.inventoryId);
    const snapshot = (await call(t.app, anna, 'GET', '/api/inventory')).body;
    expect(annas).toMatchObject({
      totalItems: snapshot.items.length,
      totalCategories: snapshot.categories.length,
      totalLocations: snapshot.locations.length,
      userCount: 2,
    });
    expect(annas.recentTransactions).toBeGreaterThanOrEqual(snapshot.revision);
  });
});
