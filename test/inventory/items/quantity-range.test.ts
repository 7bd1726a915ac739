import { describe, expect, it } from 'vitest';
import { DIALECTS, type Session } from '#test/helpers/app.js';
import { call, itemBody } from '#test/inventory/helpers.js';
import { op, useOfflineQueue } from '#test/inventory/offline-helpers.js';
import { importBody, snapshotByNames } from '#test/inventory/transfer-helpers.js';

const MAX = 1e12;

/**
 * Quantities as offline adjusts leave them (DESIGN "Offline operations", bounded cost): below 0
 * they are stored as they are and every write path takes them back; outside ±1e12 an adjust or
 * write is refused with quantity_out_of_range, so no stored state breaks a read or a write-back.
 */
describe.each(DIALECTS)('item quantities: below 0 and the ±1e12 bound (%s)', (dialect) => {
  const { t, mom, dad, sync, get, seed } = useOfflineQueue(dialect);
  const exportAs = (who: Session, format: 'csv' | 'json') =>
    t.app.inject({ url: `/api/inventory/export?format=${format}`, headers: who.headers });

  it('after the last can was used twice, GET /api/inventory → PUT of the same body is accepted', async () => {
    await seed('last-can', { quantity: 1 });
    await sync(mom, { ops: [op('last-can', 'adjust', { delta: -3 }, Date.now() - 1000)] });
    expect((await get('last-can')).quantity).toBe(-2);
    const snapshot = (await call(t.app, mom, 'GET', '/api/inventory')).body;
    const put = await call(t.app, dad, 'PUT', '/api/inventory', snapshot);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.items.find((i: any) => i.id === 'last-can').quantity).toBe(-2);
  });

  it('PUT, PATCH and POST of an item take its negative quantity back', async () => {
    const item = await get('last-can');
    const put = await call(t.app, mom, 'PUT', '/api/inventory/items/last-can', item);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const patch = await call(t.app, mom, 'PATCH', '/api/inventory/items/last-can', {
      quantity: -4,
    });
    expect(patch.status, JSON.stringify(patch.body)).toBe(200);
    expect(patch.body.quantity).toBe(-4);
    const post = await call(t.app, dad, 'POST', '/api/inventory/items', {
      ...itemBody({ id: 'owed', quantity: -0.5 }),
    });
    expect(post.status, JSON.stringify(post.body)).toBe(201);
    expect((await get('owed')).quantity).toBe(-0.5);
    const queued = await sync(dad, {
      ops: [op('owed', 'update', { quantity: -1.5 }, Date.now())],
    });
    expect(queued.body.results[0]).toMatchObject({ status: 'applied', item: { quantity: -1.5 } });
  });

  it('below the bound is still refused on REST writes', async () => {
    const res = await call(t.app, mom, 'PATCH', '/api/inventory/items/owed', {
      quantity: -MAX - 1,
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
  });

  it.each(['csv', 'json'] as const)(
    'a %s export with a negative quantity imports back exactly',
    async (format) => {
      const exported = await exportAs(mom, format);
      expect(exported.statusCode).toBe(200);
      const target = await t.createUser(`copy-${format}`);
      const payload = format === 'json' ? exported.json() : exported.rawPayload.toString('utf8');
      const applied = await importBody(t.app, target, payload, '?apply=true');
      expect(applied.statusCode, applied.body).toBe(200);
      const source = await snapshotByNames(t.app, mom);
      expect(source.items.some((i: any) => i.quantity < 0)).toBe(true);
      expect((await snapshotByNames(t.app, target)).items).toEqual(source.items);
    },
  );

  it('an adjust that would leave ±1e12 is rejected quantity_out_of_range; the others apply', async () => {
    await seed('huge', { quantity: 1 });
    const now = Date.now();
    const tooMuch = op('huge', 'adjust', { delta: MAX }, now - 3000);
    const res = await sync(mom, {
      since: 0,
      ops: [
        tooMuch,
        op('huge', 'adjust', { delta: 2 }, now - 2000),
        op('huge', 'adjust', { delta: -MAX }, now - 1000),
      ],
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    expect(res.body.results.map((r: any) => [r.status, r.code])).toEqual([
      ['rejected', 'quantity_out_of_range'],
      ['applied', undefined],
      ['applied', undefined],
    ]);
    expect(res.body.results[0].message).toMatch(/quantity/);
    expect((await get('huge')).quantity).toBe(3 - MAX);
    // the rejection is remembered as the op's first result
    const again = await sync(dad, { ops: [tooMuch] });
    expect(again.body.results[0]).toMatchObject({
      status: 'duplicate',
      original: { status: 'rejected', code: 'quantity_out_of_range' },
    });
  });

  it('a delta beyond ±1e12 itself is validation_failed', async () => {
    const res = await sync(mom, {
      ops: [op('huge', 'adjust', { delta: MAX * 2 }, Date.now())],
    });
    expect(res.body.results[0]).toMatchObject({ status: 'rejected', code: 'validation_failed' });
  });

  it('up to the bound is applied, and every member keeps syncing, writing back and exporting', async () => {
    await seed('top', { quantity: 1 });
    const res = await sync(mom, {
      ops: [op('top', 'adjust', { delta: MAX - 1 }, Date.now() - 500)],
    });
    expect(res.body.results[0]).toMatchObject({ status: 'applied', item: { quantity: MAX } });
    for (const who of [mom, dad]) {
      const pull = await sync(who, { since: 0, ops: [] });
      expect(pull.status).toBe(200);
      expect(pull.body.changes.items.find((i: any) => i.id === 'top').quantity).toBe(MAX);
      const changes = await call(t.app, who, 'GET', '/api/inventory/changes?since=0');
      expect(changes.status).toBe(200);
    }
    const snapshot = (await call(t.app, mom, 'GET', '/api/inventory')).body;
    expect((await call(t.app, dad, 'PUT', '/api/inventory', snapshot)).status).toBe(200);
    const exported = await exportAs(mom, 'json');
    const target = await t.createUser('copy-top');
    const applied = await importBody(t.app, target, exported.json(), '?apply=true');
    expect(applied.statusCode, applied.body).toBe(200);
  });

  it('a recount older than a counted adjust cannot push the sum past the bound: sync and REST', async () => {
    await seed('pile', { quantity: 0 });
    const now = Date.now();
    const adjust = op('pile', 'adjust', { delta: MAX }, now - 1000);
    expect((await sync(mom, { ops: [adjust] })).body.results[0].status).toBe('applied');
    const recount = await sync(dad, {
      ops: [op('pile', 'update', { quantity: 5 }, now - 2000)],
    });
    expect(recount.body.results[0]).toMatchObject({
      status: 'rejected',
      code: 'quantity_out_of_range',
    });
    // a REST write at the adjust's own time loses the tie to it: the adjust stays counted
    const rest = await call(t.app, mom, 'PATCH', '/api/inventory/items/pile', {
      quantity: 1,
      lastUpdated: now - 1000,
    });
    expect(rest.status, JSON.stringify(rest.body)).toBe(422);
    expect(rest.body.code).toBe('quantity_out_of_range');
    expect((await get('pile')).quantity).toBe(MAX);
    // a later recount replaces the counted adjusts
    const later = await sync(dad, { ops: [op('pile', 'update', { quantity: 5 }, now)] });
    expect(later.body.results[0]).toMatchObject({ status: 'applied', item: { quantity: 5 } });
  });
});
