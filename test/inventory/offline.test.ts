import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, createUser, loginAsAdmin, type Session } from '../helpers/app.js';
import { inTestApp, useTestApp } from '../helpers/fixtures.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { openSocket, type TestSocket } from '../helpers/ws.js';
import { call, itemBody, seedBasics, share, updateFor } from './helpers.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

let serial = 0;
/** A queued operation as the app stores it (payload as JSON text). */
function op(itemId: string, operation: string, payload: unknown, createdAt: number, id?: string) {
  return {
    id: id ?? `op-${++serial}-${Math.random().toString(36).slice(2, 8)}`,
    itemId,
    operation,
    payload: payload === undefined ? undefined : JSON.stringify(payload),
    createdAt,
  };
}

describe.each(DIALECTS)('offline queue: POST /api/inventory/sync (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const [mom, dad] = t.users('mom', 'dad');
  const sockets: TestSocket[] = [];
  const sync = (who: Session, body: unknown) =>
    call(t.app, who, 'POST', '/api/inventory/sync', body);
  const get = async (id: string) =>
    (await call(t.app, mom, 'GET', `/api/inventory/items/${id}`)).body;
  const revision = async () => (await call(t.app, mom, 'GET', '/api/inventory')).body.revision;
  /** An item written through REST at `lastUpdated` (an hour ago by default). */
  const seed = async (id: string, overrides: Record<string, unknown> = {}) => {
    const res = await call(
      t.app,
      mom,
      'PUT',
      `/api/inventory/items/${id}`,
      itemBody({ name: id, lastUpdated: Date.now() - 60 * MINUTE, ...overrides }),
    );
    expect(res.status).toBe(201);
    return res.body;
  };

  beforeAll(async () => {
    await share(t.app, t.admin, mom, dad);
    await seedBasics(t.app, mom);
  });
  afterEach(async () => {
    await Promise.all(sockets.splice(0).map((s) => s.close()));
  });

  it('two phones consuming offline: Beans at 10, Mom uses 2, Dad uses 1 later → 7 in either order', async () => {
    for (const [first, second] of [
      ['mom', 'dad'],
      ['dad', 'mom'],
    ] as const) {
      const id = `beans-${first}-first`;
      await seed(id, { quantity: 10 });
      const now = Date.now();
      const batches = {
        mom: [op(id, 'adjust', { delta: -2 }, now - 30 * MINUTE)],
        dad: [op(id, 'adjust', { delta: -1 }, now - 10 * MINUTE)],
      };
      const a = await sync(first === 'mom' ? mom : dad, { ops: batches[first] });
      const b = await sync(second === 'mom' ? mom : dad, { ops: batches[second] });
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      expect(a.body.results[0].status).toBe('applied');
      expect(b.body.results[0]).toMatchObject({ status: 'applied', item: { quantity: 7 } });
      expect((await get(id)).quantity).toBe(7);
    }
  });

  it('the last can used on two phones goes below zero and is stored as it is', async () => {
    await seed('last-can', { quantity: 1 });
    const now = Date.now();
    await sync(mom, { ops: [op('last-can', 'adjust', { delta: -1 }, now - 2000)] });
    await sync(dad, { ops: [op('last-can', 'adjust', { delta: -1 }, now - 1000)] });
    expect((await get('last-can')).quantity).toBe(-1);
  });

  it('a recount: adjusts made before it are in the count, later ones apply, in any arrival order', async () => {
    const now = Date.now();
    const ops = [
      op('x', 'adjust', { delta: -2 }, now - 50 * MINUTE),
      op('x', 'update', { quantity: 5 }, now - 40 * MINUTE),
      op('x', 'adjust', { delta: -1 }, now - 45 * MINUTE),
      op('x', 'adjust', { delta: -1 }, now - 30 * MINUTE),
    ];
    const orders = [
      [0, 1, 2, 3],
      [3, 2, 1, 0],
      [1, 3, 0, 2],
    ];
    for (const [n, order] of orders.entries()) {
      const id = `rice-recount-${n}`;
      await seed(id, { quantity: 10 });
      for (const i of order) {
        const res = await sync(n % 2 ? mom : dad, {
          ops: [{ ...ops[i]!, id: `${ops[i]!.id}-${n}`, itemId: id }],
        });
        expect(res.body.results[0].status).toBe('applied');
      }
      expect((await get(id)).quantity).toBe(4);
      expect((await get(id)).lastUpdated).toBe(now - 30 * MINUTE);
    }
  });

  it('a phone set a year ahead cannot lock an item: its time counts as the server clock', async () => {
    await seed('flour', { quantity: 3 });
    const yearAhead = Date.now() + 365 * DAY;
    const fast = await call(t.app, dad, 'PATCH', '/api/inventory/items/flour', {
      quantity: 2,
      lastUpdated: yearAhead,
    });
    expect(fast.status).toBe(200);
    expect(fast.body.lastUpdated).toBeLessThanOrEqual(Date.now());
    const honest = await call(t.app, mom, 'PATCH', '/api/inventory/items/flour', {
      notes: 'honest edit',
      lastUpdated: Date.now() + 1000,
    });
    expect(honest.status).toBe(200);
    expect(honest.body.notes).toBe('honest edit');

    const queued = await sync(dad, { ops: [op('flour', 'update', { unit: 'g' }, yearAhead)] });
    expect(queued.body.results[0].status).toBe('applied');
    expect(queued.body.results[0].item.lastUpdated).toBeLessThanOrEqual(Date.now() + MINUTE);
    const later = await sync(mom, {
      ops: [op('flour', 'update', { unit: 'kg' }, Date.now() + 5000)],
    });
    expect(later.body.results[0]).toMatchObject({ status: 'applied', item: { unit: 'kg' } });
  });

  it('a time within LARDER_CLOCK_SKEW ahead is taken as it is', async () => {
    await seed('salt');
    const soon = Date.now() + 30_000;
    const res = await sync(mom, { ops: [op('salt', 'update', { notes: 'soon' }, soon)] });
    expect(res.body.results[0].item.lastUpdated).toBe(soon);
  });

  it('fields from two phones both go in; an older write of a field is kept out and named', async () => {
    await seed('oats', { quantity: 4 });
    const now = Date.now();
    const rename = await sync(mom, {
      ops: [op('oats', 'update', { name: 'Rolled oats' }, now - 2000)],
    });
    expect(rename.body.results[0].status).toBe('applied');
    const notes = await sync(dad, {
      ops: [op('oats', 'update', { notes: 'top shelf', name: 'Oats (old)' }, now - 5000)],
    });
    expect(notes.body.results[0]).toMatchObject({
      status: 'merged',
      kept: ['name'],
      item: { name: 'Rolled oats', notes: 'top shelf', lastUpdated: now - 2000 },
    });
    // REST keeps its contract: a PATCH older than the item is 409 stale_update
    const stale = await call(t.app, dad, 'PATCH', '/api/inventory/items/oats', {
      notes: 'x',
      lastUpdated: now - 3000,
    });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('stale_update');
    expect(stale.body.item.name).toBe('Rolled oats');
  });

  it('equal times: the larger op id wins, a REST write loses to an operation', async () => {
    await seed('tea');
    const at = Date.now() - 1000;
    await sync(mom, { ops: [op('tea', 'update', { notes: 'from b' }, at, 'tie-b')] });
    const a = await sync(dad, { ops: [op('tea', 'update', { notes: 'from a' }, at, 'tie-a')] });
    expect(a.body.results[0]).toMatchObject({ status: 'merged', kept: ['notes'] });
    const rest = await call(t.app, dad, 'PATCH', '/api/inventory/items/tea', {
      notes: 'rest',
      lastUpdated: at,
    });
    expect(rest.status).toBe(200);
    expect(rest.body.notes).toBe('from b');
  });

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
      op('soup', 'update', { quantity: -3 }, now - 6000),
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

describe.each(DIALECTS)('LARDER_CLOCK_SKEW (%s)', (dialect) => {
  it('is how far ahead a phone may be: with 0 every future time counts as now', async () => {
    await inTestApp(dialect, { extraEnv: { LARDER_CLOCK_SKEW: '0' } }, async (t) => {
      const anna = await createUser(t.app, await loginAsAdmin(t.app), 'anna');
      await seedBasics(t.app, anna);
      const soon = Date.now() + 30_000;
      const res = await call(
        t.app,
        anna,
        'PUT',
        '/api/inventory/items/a',
        itemBody({ lastUpdated: soon }),
      );
      expect(res.status).toBe(201);
      expect(res.body.lastUpdated).toBeLessThan(soon);
      expect(res.body.lastUpdated).toBeGreaterThan(soon - 60_000);
    });
    expect(loadConfig({}).clockSkewMs).toBe(60_000);
    expect(loadConfig({ LARDER_CLOCK_SKEW: '2m' }).clockSkewMs).toBe(120_000);
    expect(() => loadConfig({ LARDER_CLOCK_SKEW: 'soon' })).toThrow(ConfigError);
  });
});
