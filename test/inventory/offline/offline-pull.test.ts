import { describe, expect, it } from 'vitest';
import { DIALECTS, type Session } from '#test/helpers/app.js';
import { call, itemBody } from '#test/inventory/helpers.js';
import { DAY, MINUTE, op, useOfflineQueue } from '#test/inventory/offline-helpers.js';

describe.each(DIALECTS)('offline queue: POST /api/inventory/sync (%s)', (dialect) => {
  const { t, mom, dad, sync, get, revision, seed } = useOfflineQueue(dialect);

  it('pulls in the same round trip: changes since `since`, a full sync when too old, 400 when ahead', async () => {
    const since = await revision();
    const now = Date.now();
    const res = await sync(dad, {
      since,
      ops: [op('bread', 'create', itemBody({ name: 'Bread' }), now - 1000)],
    });
    expect(res.status).toBe(200);
    expect(res.body.changes.items.map((i: any) => i.id)).toEqual(['bread']);
    expect(res.body.revision).toBe(res.body.changes.revision);
    expect(res.body.revision).toBe(since + 1);

    const ahead = await sync(dad, {
      since: res.body.revision + 5,
      ops: [op('bread', 'adjust', { delta: 1 }, now)],
    });
    expect(ahead.status).toBe(400);
    expect(ahead.body).toMatchObject({
      code: 'validation_failed',
      message: expect.stringContaining('since'),
    });
    expect((await get('bread')).quantity).toBe(2);
    expect(await revision()).toBe(res.body.revision);

    const none = await sync(dad, { ops: [] });
    expect(none.body).toEqual({ results: [], revision: res.body.revision });
  });

  it('bounds: 1,000 ops, 64-character ids, 64 KB payloads, 4 MB bodies; nothing written', async () => {
    const before = await revision();
    const now = Date.now();
    const cases: [string, unknown, number, string][] = [
      [
        '1,001 operations',
        { ops: Array.from({ length: 1001 }, () => op('a', 'delete', '', now)) },
        400,
        'ops',
      ],
      [
        'an op id of 65 characters',
        { ops: [op('a', 'delete', '', now, 'x'.repeat(65))] },
        400,
        'id',
      ],
      ['an empty op id', { ops: [op('a', 'delete', '', now, '')] }, 400, 'id'],
      ['an unknown operation', { ops: [op('a', 'rename', {}, now)] }, 400, 'operation'],
      ['a negative createdAt', { ops: [op('a', 'delete', '', -1)] }, 400, 'createdAt'],
      ['a bad item id', { ops: [op('a b', 'delete', '', now)] }, 400, 'itemId'],
      ['an unknown field', { ops: [{ ...op('a', 'delete', '', now), user: 'x' }] }, 400, 'ops.0'],
      ['no ops', {}, 400, 'ops'],
      [
        'a payload over 64 KB',
        { ops: [op('bounds-1', 'update', { notes: 'é'.repeat(33_000) }, now)] },
        413,
        'payload',
      ],
    ];
    for (const [what, body, status, field] of cases) {
      const res = await sync(mom, body);
      expect(res.status, what).toBe(status);
      expect(res.body.message, what).toContain(field);
      expect(typeof res.body.code).toBe('string');
    }
    const big = await t.app.inject({
      method: 'POST',
      url: '/api/inventory/sync',
      headers: { ...mom.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ ops: [], pad: 'x'.repeat(4 * 1024 * 1024) }),
    });
    expect(big.statusCode).toBe(413);
    expect(big.json().code).toBe('payload_too_large');
    const within = await sync(mom, {
      ops: Array.from({ length: 1000 }, (_, i) =>
        op(`bounds-${i}`, 'delete', '', now, `b${i}-${'y'.repeat(58)}`),
      ),
    });
    expect(within.status).toBe(200);
    expect(within.body.results).toHaveLength(1000);
    expect(await revision()).toBe(before);
    expect((await call(t.app, null, 'POST', '/api/inventory/sync', { ops: [] })).status).toBe(401);
  });

  it('a NUL character inside a payload text is refused for that op, not a 500', async () => {
    await seed('nul-item');
    const res = await sync(mom, {
      ops: [
        { ...op('nul-item', 'update', undefined, Date.now()), payload: '{"notes":"a\\u0000b"}' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({ status: 'rejected', code: 'validation_failed' });
  });

  it('REST writes and import record field times: an older import row does not overwrite', async () => {
    await seed('honey', { quantity: 2 });
    const now = Date.now();
    await sync(mom, { ops: [op('honey', 'update', { notes: 'queued' }, now - 1000)] });
    const csv =
      'id,name,category,location,quantity,lastUpdated\r\n' +
      `honey,Old honey,Food,Pantry,9,${now - 30 * MINUTE}\r\n`;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/inventory/import?apply=true',
      headers: { ...dad.headers, 'content-type': 'text/csv' },
      payload: csv,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().rows[0].action).toBe('unchanged');
    expect(await get('honey')).toMatchObject({ name: 'honey', quantity: 2, notes: 'queued' });
    // a queued adjust made after a REST count is counted on top of it
    await call(t.app, dad, 'PATCH', '/api/inventory/items/honey', {
      quantity: 5,
      lastUpdated: now,
    });
    await sync(mom, { ops: [op('honey', 'adjust', { delta: -1 }, now + 1000)] });
    await sync(mom, { ops: [op('honey', 'adjust', { delta: -1 }, now - 500)] });
    expect((await get('honey')).quantity).toBe(4);
  });

  it('a REST delete and a whole-inventory PUT end ids for the queue; a REST create revives one', async () => {
    const now = Date.now();
    await seed('crackers');
    expect((await call(t.app, dad, 'DELETE', '/api/inventory/items/crackers')).status).toBe(204);
    const late = await sync(mom, { ops: [op('crackers', 'adjust', { delta: -1 }, now - 1000)] });
    expect(late.body.results[0].code).toBe('item_deleted');
    expect(
      (await call(t.app, dad, 'PUT', '/api/inventory/items/crackers', itemBody())).status,
    ).toBe(201);
    const revived = await sync(mom, { ops: [op('crackers', 'adjust', { delta: -1 }, now)] });
    expect(revived.body.results[0]).toMatchObject({ status: 'applied', item: { quantity: 1 } });

    const snapshot = (await call(t.app, mom, 'GET', '/api/inventory')).body;
    // (items counted below zero by adjusts cannot be sent back as absolute quantities)
    const kept = snapshot.items.filter((i: any) => i.id !== 'crackers' && i.quantity >= 0);
    const { inventoryId: _id, revision: _revision, ...body } = { ...snapshot, items: kept };
    expect((await call(t.app, dad, 'PUT', '/api/inventory', body)).status).toBe(200);
    const gone = await sync(mom, { ops: [op('crackers', 'update', { notes: 'x' }, now + 1000)] });
    expect(gone.body.results[0].code).toBe('item_deleted');
  });

  it('operation ids are forgotten with the history after 90 days', async () => {
    await seed('rusk');
    const batch = { ops: [op('rusk', 'adjust', { delta: 1 }, Date.now() - 1000)] };
    expect((await sync(mom, batch)).body.results[0].status).toBe('applied');
    t.clock.advance(91 * DAY);
    try {
      await t.app.larder.inventory.pruneHistory();
      const login = await call(t.app, null, 'POST', '/api/auth/login', {
        username: 'mom',
        password: 'mom-password',
      });
      const fresh = { ...mom, headers: { authorization: `Bearer ${login.body.accessToken}` } };
      const since = 0;
      const res = await sync(fresh as Session, { since, ops: batch.ops });
      expect(res.body.results[0].status).toBe('applied');
      expect(res.body.changes).toEqual({ fullSyncRequired: true });
    } finally {
      t.clock.advance(-91 * DAY);
    }
  });
});
