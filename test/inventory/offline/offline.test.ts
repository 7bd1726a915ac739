import { describe, expect, it } from 'vitest';
import { DIALECTS, createUser, loginAsAdmin } from '#test/helpers/app.js';
import { inTestApp } from '#test/helpers/fixtures.js';
import { ConfigError, loadConfig } from '#src/config.js';
import { call, itemBody, seedBasics } from '#test/inventory/helpers.js';
import { DAY, MINUTE, op, useOfflineQueue } from '#test/inventory/offline-helpers.js';

describe.each(DIALECTS)('offline queue: POST /api/inventory/sync (%s)', (dialect) => {
  const { t, mom, dad, sync, get, seed } = useOfflineQueue(dialect);

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

  it('adjusts out of time order within one batch are all counted, after an earlier batch', async () => {
    await seed('soup', { quantity: 10 });
    const now = Date.now();
    const at = (minutes: number, delta: number, n: number) =>
      op('soup', 'adjust', { delta }, now - 50 * MINUTE + minutes * MINUTE, `soup-${n}`);
    await sync(mom, { ops: [at(0, 1, 0)] });
    // the first two arrive in time order, the next ones earlier than both
    const batch = [at(2, 2, 1), at(5, 5, 2), at(3, 3, 3), at(1, 1, 4), at(4, 4, 5)];
    const res = await sync(dad, { ops: batch });
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(
      batch.map(() => 'applied'),
    );
    expect((await get('soup')).quantity).toBe(10 + 1 + 2 + 5 + 3 + 1 + 4);
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
