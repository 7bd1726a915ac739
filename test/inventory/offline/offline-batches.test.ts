import { describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { openSocket } from '#test/helpers/ws.js';
import { call, itemBody, updateFor } from '#test/inventory/helpers.js';
import { op, useOfflineQueue } from '#test/inventory/offline-helpers.js';

describe.each(DIALECTS)('offline queue: POST /api/inventory/sync (%s)', (dialect) => {
  const { t, mom, dad, sockets, sync, get, revision, seed } = useOfflineQueue(dialect);

  it('a retried batch applies nothing again: duplicates carry the first result, no revision, no event', async () => {
    const seeded = await seed('milk', { quantity: 6 });
    const socket = await openSocket(t.app, dad.token);
    sockets.push(socket);
    await socket.next('hello');
    const now = Date.now();
    const batch = {
      ops: [
        op('milk', 'adjust', { delta: -1 }, now - 3000),
        op('milk', 'update', { categoryId: 999 }, now - 2000),
        op('milk', 'adjust', { delta: -2 }, now - 1000),
      ],
    };
    const first = await sync(mom, batch);
    expect(first.body.results.map((r: any) => r.status)).toEqual([
      'applied',
      'rejected',
      'applied',
    ]);
    await updateFor(socket, first.body.revision);
    const retry = await sync(dad, batch);
    expect(retry.status).toBe(200);
    expect(retry.body.revision).toBe(first.body.revision);
    expect(retry.body.results.map((r: any) => r.status)).toEqual([
      'duplicate',
      'duplicate',
      'duplicate',
    ]);
    expect(retry.body.results[1].original).toEqual({
      id: batch.ops[1]!.id,
      status: 'rejected',
      code: 'unknown_reference',
      message: expect.stringContaining('999'),
    });
    expect(retry.body.results[0].item.quantity).toBe(3);
    expect((await get('milk')).quantity).toBe(3);
    expect(await revision()).toBe(first.body.revision);
    // barrier: a real change after the retry; its event follows any the retry could have sent
    const next = await call(t.app, mom, 'PATCH', '/api/inventory/items/milk', { notes: 'x' });
    await updateFor(socket, next.body.revision);
    // (on PostgreSQL the seed's own event may still reach the socket opened after it)
    const events = socket.frames.filter(
      (f) => f.type === 'inventoryUpdated' && f.revision > seeded.revision,
    );
    expect(events.map((f) => f.revision)).toEqual([first.body.revision, next.body.revision]);
  });

  it('one batch of many operations is one revision and one inventoryUpdated', async () => {
    await seed('pasta', { quantity: 20 });
    const socket = await openSocket(t.app, mom.token);
    sockets.push(socket);
    await socket.next('hello');
    const before = await revision();
    const now = Date.now();
    const ops = [
      ...Array.from({ length: 10 }, (_, i) => op('pasta', 'adjust', { delta: -1 }, now - 100 + i)),
      op('pasta-2', 'create', itemBody({ name: 'Pasta 2' }), now - 50),
      op('pasta', 'update', { notes: 'ten used' }, now - 10),
    ];
    const res = await sync(dad, { ops });
    expect(res.body.revision).toBe(before + 1);
    expect(await revision()).toBe(before + 1);
    expect((await get('pasta')).quantity).toBe(10);
    expect((await get('pasta-2')).revision).toBe(before + 1);
    await updateFor(socket, before + 1);
    const marker = await call(t.app, mom, 'PATCH', '/api/inventory/items/pasta', { notes: 'y' });
    await updateFor(socket, marker.body.revision);
    const events = socket.frames.filter(
      (f) => f.type === 'inventoryUpdated' && f.revision > before,
    );
    expect(events.map((f) => f.revision)).toEqual([before + 1, marker.body.revision]);
  });

  it('delete before edit and edit before delete: the id is ended either way', async () => {
    const now = Date.now();
    // delete arrives first, an older edit afterwards
    await seed('jam-1');
    const del = await sync(mom, { ops: [op('jam-1', 'delete', undefined, now - 1000)] });
    expect(del.body.results[0]).toEqual({ id: expect.any(String), status: 'applied' });
    const edit = await sync(dad, { ops: [op('jam-1', 'adjust', { delta: -1 }, now - 5000)] });
    expect(edit.body.results[0]).toMatchObject({ status: 'rejected', code: 'item_deleted' });
    // the edit arrives first, the (older) delete afterwards: gone too
    await seed('jam-2');
    const edit2 = await sync(dad, { ops: [op('jam-2', 'update', { notes: 'x' }, now - 1000)] });
    expect(edit2.body.results[0].status).toBe('applied');
    const del2 = await sync(mom, { ops: [op('jam-2', 'delete', undefined, now - 5000)] });
    expect(del2.body.results[0].status).toBe('applied');
    for (const id of ['jam-1', 'jam-2']) {
      expect((await call(t.app, mom, 'GET', `/api/inventory/items/${id}`)).status).toBe(404);
      const again = await sync(dad, {
        ops: [
          op(id, 'create', itemBody(), now),
          op(id, 'update', { notes: 'y' }, now),
          op(id, 'adjust', { delta: 1 }, now),
        ],
      });
      expect(again.body.results.map((r: any) => r.code)).toEqual([
        'item_deleted',
        'item_deleted',
        'item_deleted',
      ]);
    }
  });

  it('a delete of an id never seen is applied and remembered: its create later is refused', async () => {
    const now = Date.now();
    const before = await revision();
    const del = await sync(mom, { ops: [op('ghost', 'delete', '', now - 2000)] });
    expect(del.body.results[0].status).toBe('applied');
    expect(await revision()).toBe(before);
    const create = await sync(dad, { ops: [op('ghost', 'create', itemBody(), now - 5000)] });
    expect(create.body.results[0]).toMatchObject({ status: 'rejected', code: 'item_deleted' });
    expect((await call(t.app, mom, 'GET', '/api/inventory/items/ghost')).status).toBe(404);
  });

  it('a rejected operation among good ones: each says why, the others apply', async () => {
    await seed('soup', { quantity: 5 });
    const now = Date.now();
    const ops = [
      op('soup', 'adjust', { delta: -1 }, now - 9000),
      op('soup', 'update', { locationId: 42 }, now - 8000),
      { ...op('soup', 'update', undefined, now - 7000), payload: '{"notes": ' },
      op('soup', 'update', { quantity: -3e12 }, now - 6000),
      op('soup', 'update', { colour: 'red' }, now - 5500),
      op('nowhere', 'adjust', { delta: 1 }, now - 5000),
      op('soup', 'adjust', { delta: 'one' }, now - 4000),
      op('soup-2', 'create', { name: 'no category' }, now - 3500),
      op('soup', 'update', { notes: 'good' }, now - 3000),
    ];
    const before = await revision();
    const res = await sync(mom, { ops });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: any) => [r.status, r.code])).toEqual([
      ['applied', undefined],
      ['rejected', 'unknown_reference'],
      ['rejected', 'validation_failed'],
      ['rejected', 'validation_failed'],
      ['rejected', 'validation_failed'],
      ['rejected', 'item_not_found'],
      ['rejected', 'validation_failed'],
      ['rejected', 'validation_failed'],
      ['applied', undefined],
    ]);
    for (const r of res.body.results.filter((x: any) => x.status === 'rejected')) {
      expect(r.message.length).toBeGreaterThan(0);
    }
    expect(res.body.results[3].message).toContain('quantity');
    expect(res.body.results[4].message).toContain('colour');
    expect(await get('soup')).toMatchObject({ quantity: 4, notes: 'good', locationId: 1 });
    expect(await revision()).toBe(before + 1);
  });

  it('a payload may be an object; a create of an existing id merges like an update', async () => {
    const now = Date.now();
    const created = await sync(mom, {
      ops: [
        {
          id: 'obj-1',
          itemId: 'cocoa',
          operation: 'create',
          payload: itemBody({ name: 'Cocoa' }),
          createdAt: now - 9000,
        },
      ],
    });
    expect(created.body.results[0]).toMatchObject({
      status: 'applied',
      item: { name: 'Cocoa', lastUpdated: now - 9000 },
    });
    const again = await sync(dad, {
      ops: [op('cocoa', 'create', itemBody({ name: 'Kakao', notes: 'newer' }), now - 8000)],
    });
    expect(again.body.results[0]).toMatchObject({
      status: 'applied',
      item: { name: 'Kakao', notes: 'newer' },
    });
  });
  it('an answer of many results is written a slice at a time: whole, in order, as one would be', async () => {
    const before = await revision();
    await seed('flour', { quantity: 500 });
    const now = Date.now();
    const ops = [
      ...Array.from({ length: 249 }, (_, i) =>
        op('flour', 'adjust', { delta: -1 }, now - 5000 + i),
      ),
      op('flour', 'update', { categoryId: 999 }, now - 100),
    ];
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/inventory/sync',
      headers: mom.headers,
      payload: { since: before, ops },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = res.json();
    expect(Object.keys(body)).toEqual(['results', 'revision', 'changes']);
    expect(body.results.map((r: { id: string }) => r.id)).toEqual(ops.map((o) => o.id));
    expect(body.results[0]).toEqual({
      id: ops[0]!.id,
      status: 'applied',
      item: expect.objectContaining({ id: 'flour', quantity: 499 }),
    });
    expect(body.results[248].item.quantity).toBe(251);
    expect(body.results[249]).toEqual({
      id: ops[249]!.id,
      status: 'rejected',
      code: 'unknown_reference',
      message: expect.stringContaining('999'),
    });
    expect(body.revision).toBe(before + 2);
    expect(body.changes.items.map((i: { id: string }) => i.id)).toContain('flour');
  });
});
