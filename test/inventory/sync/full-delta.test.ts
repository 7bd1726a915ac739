import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DIALECTS, type Session } from '#test/helpers/app.js';
import { call, itemBody } from '#test/inventory/helpers.js';
import { op, useOfflineQueue } from '#test/inventory/offline-helpers.js';

/**
 * A delta from revision 0 (`GET /api/inventory/changes?since=0`, `POST /api/inventory/sync
 * {since: 0}`) is everything the inventory holds plus what was deleted: served from the cached
 * snapshot (docs/performance.md "Full delta"), it must answer exactly what a delta answers.
 */
describe.each(DIALECTS)('full delta from revision 0 (%s)', (dialect) => {
  const { t, mom, dad } = useOfflineQueue(dialect);

  async function raw(who: Session, url: string, gzip = false, body?: unknown) {
    const res = await t.app.inject({
      method: body === undefined ? 'GET' : 'POST',
      url,
      headers: { ...who.headers, ...(gzip ? { 'accept-encoding': 'gzip' } : {}) },
      ...(body === undefined ? {} : { payload: body as object }),
    });
    const text =
      res.headers['content-encoding'] === 'gzip'
        ? zlib.gunzipSync(res.rawPayload).toString()
        : res.body;
    return {
      status: res.statusCode,
      encoding: res.headers['content-encoding'],
      body: JSON.parse(text),
    };
  }

  /** What a delta from 0 must hold: the snapshot's content and the deletions given. */
  async function expected(deleted: Record<string, unknown[]>) {
    const snap = (await call(t.app, mom, 'GET', '/api/inventory')).body;
    return {
      revision: snap.revision,
      name: snap.name,
      items: snap.items,
      deletedItemIds: [],
      categories: snap.categories,
      deletedCategoryIds: [],
      locations: snap.locations,
      deletedLocationIds: [],
      settings: snap.settings,
      deletedSettingKeys: [],
      // from 0 the client has no shopping list yet
      shoppingListChanged: true,
      ...deleted,
    };
  }

  it('holds every item, category, location and setting and exactly what was deleted', async () => {
    for (const id of ['a', 'b', 'c', 'd', 'e']) {
      const res = await call(
        t.app,
        mom,
        'PUT',
        `/api/inventory/items/${id}`,
        itemBody({ name: id }),
      );
      expect(res.status).toBe(201);
    }
    await call(t.app, mom, 'PUT', '/api/inventory/locations/2', { name: 'Attic' });
    await call(t.app, mom, 'PUT', '/api/inventory/categories/5', { name: 'Tools' });
    await call(t.app, mom, 'PUT', '/api/inventory/settings', { householdSize: '3', theme: 'dark' });
    // the snapshot is cached now: what follows must not be answered from it
    expect((await raw(mom, '/api/inventory/changes?since=0')).status).toBe(200);
    await call(t.app, dad, 'DELETE', '/api/inventory/items/b');
    await call(t.app, dad, 'DELETE', '/api/inventory/items/d');
    await call(t.app, dad, 'DELETE', '/api/inventory/locations/2');
    await call(t.app, dad, 'DELETE', '/api/inventory/categories/5');
    await call(t.app, dad, 'DELETE', '/api/inventory/settings/theme');
    // deleted and created again: present, not deleted
    await call(t.app, dad, 'DELETE', '/api/inventory/items/e');
    await call(t.app, dad, 'PUT', '/api/inventory/items/e', itemBody({ name: 'e again' }));

    const want = await expected({
      deletedItemIds: ['b', 'd'],
      deletedCategoryIds: [5],
      deletedLocationIds: [2],
      deletedSettingKeys: ['theme'],
    });
    expect(want.items.map((i: any) => i.id)).toEqual(['a', 'c', 'e']);
    for (const gzip of [false, true]) {
      const got = await raw(dad, '/api/inventory/changes?since=0', gzip);
      expect(got.status).toBe(200);
      expect(got.encoding).toBe(gzip ? 'gzip' : undefined);
      expect(got.body).toEqual(want);
    }
    const pulled = await raw(dad, '/api/inventory/sync', true, { since: 0, ops: [] });
    expect(pulled.status).toBe(200);
    expect(pulled.body).toEqual({ results: [], revision: want.revision, changes: want });
    // a delta from a later revision agrees with it
    const later = (await call(t.app, dad, 'GET', `/api/inventory/changes?since=1`)).body;
    expect(later.deletedItemIds).toEqual(['b', 'd']);
  });

  it('a sync with operations and since 0 answers its results around the delta after them', async () => {
    const now = Date.now();
    const ops = [
      op('a', 'adjust', { delta: -1 }, now - 1000),
      op('nowhere', 'adjust', { delta: 1 }, now - 500),
      op('f', 'create', itemBody({ name: 'f "quoted" \u00e9' }), now - 100),
    ];
    for (const gzip of [false, true]) {
      const batch = gzip ? ops.map((o) => ({ ...o, id: `${o.id}-again` })) : ops;
      const res = await raw(mom, '/api/inventory/sync', gzip, { since: 0, ops: batch });
      expect(res.status).toBe(200);
      const want = await expected({
        deletedItemIds: ['b', 'd'],
        deletedCategoryIds: [5],
        deletedLocationIds: [2],
        deletedSettingKeys: ['theme'],
      });
      expect(res.body.changes).toEqual(want);
      expect(res.body.revision).toBe(want.revision);
      expect(res.body.results.map((r: any) => [r.status, r.code])).toEqual([
        ['applied', undefined],
        ['rejected', 'item_not_found'],
        ['applied', undefined],
      ]);
      expect(res.body.results[0].item.quantity).toBe(gzip ? 0 : 1);
      expect(want.items.find((i: any) => i.id === 'f').name).toBe('f "quoted" \u00e9');
    }
  });

  it('many members asking at once get the same answer; a write in between is seen', async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 2
          ? raw(i % 4 === 1 ? mom : dad, '/api/inventory/changes?since=0', i % 3 === 0)
          : raw(dad, '/api/inventory/sync', i % 3 === 0, { since: 0, ops: [] }).then((r) => ({
              ...r,
              body: r.body.changes,
            })),
      ),
    );
    for (const a of answers) expect(a.body).toEqual(answers[0]!.body);
    await call(t.app, mom, 'PATCH', '/api/inventory/items/c', { notes: 'after' });
    const after = await raw(dad, '/api/inventory/changes?since=0');
    expect(after.body.revision).toBe(answers[0]!.body.revision + 1);
    expect(after.body.items.find((i: any) => i.id === 'c').notes).toBe('after');
  });

  it('since 0 with the id of another inventory is 410, as any delta', async () => {
    const res = await call(t.app, mom, 'GET', '/api/inventory/changes?since=0&inventoryId=other');
    expect(res.status).toBe(410);
    expect(res.body.code).toBe('full_sync_required');
  });
});
