import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '#src/config.js';
import { createDatabase } from '#src/db/database.js';
import { MIGRATIONS, migrateToLatest } from '#src/db/migrate.js';
import { DIALECTS, destroyTestEnvironment, login, testEnvironment } from '#test/helpers/app.js';
import { inTestApp } from '#test/helpers/fixtures.js';
import { seedOldHousehold } from '#test/helpers/old-schema.js';
import { call } from '#test/inventory/helpers.js';
import { DAY, MINUTE, op, useOfflineQueue } from '#test/inventory/offline-helpers.js';

/** The quantity the merge rules give: the base, then each adjust after it, summed in time order. */
function folded(base: number, adjusts: { t: number; o: string; delta: number }[]) {
  const later = (a: { t: number; o: string }, b: { t: number; o: string }) =>
    a.t > b.t || (a.t === b.t && a.o > b.o);
  let quantity = base;
  for (const a of [...adjusts].sort((a, b) => (later(a, b) ? 1 : -1))) quantity += a.delta;
  return quantity;
}

/**
 * Adjusts are counted in rows of their own (src/inventory/items/items.adjusts.ts) so one op costs
 * the same whatever the item's history; the merge results are those of the rules as before:
 * floating-point sums in time order, whatever the arrival order and batching.
 */
describe.each(DIALECTS)('counted adjusts, whatever their history (%s)', (dialect) => {
  const { t, mom, dad, sync, get, seed } = useOfflineQueue(dialect);
  const DELTAS = [0.1, -0.7, 2.3, -1.1, 0.2, 5, -0.3];

  it('adjusts arriving in any order and batching sum in time order, to the same float', async () => {
    const now = Date.now();
    const adjusts = Array.from({ length: 60 }, (_, i) => ({
      // some share a time: the op id orders those
      op: op(
        'x',
        'adjust',
        { delta: DELTAS[i % DELTAS.length] },
        now - 50 * MINUTE + (i % 20) * 1000,
      ),
      delta: DELTAS[i % DELTAS.length]!,
    }));
    const orders = {
      inOrder: [...adjusts].sort(
        (a, b) => a.op.createdAt - b.op.createdAt || (a.op.id < b.op.id ? -1 : 1),
      ),
      reversed: [...adjusts].reverse(),
      interleaved: adjusts.filter((_, i) => i % 2).concat(adjusts.filter((_, i) => i % 2 === 0)),
    };
    for (const [name, list] of Object.entries(orders)) {
      const id = `mix-${name}`;
      await seed(id, { quantity: 10 });
      for (let i = 0; i < list.length; i += 7) {
        const batch = list
          .slice(i, i + 7)
          .map((a) => ({ ...a.op, id: `${a.op.id}-${name}`, itemId: id }));
        const res = await sync(i % 2 ? mom : dad, { ops: batch });
        expect(res.status).toBe(200);
        expect(res.body.results.every((r: any) => r.status === 'applied')).toBe(true);
      }
      const want = folded(
        10,
        adjusts.map((a) => ({ t: a.op.createdAt, o: `${a.op.id}-${name}`, delta: a.delta })),
      );
      expect((await get(id)).quantity, name).toBe(want);
    }
  });

  it('each result carries the item right after its op, even when an op lands among earlier ones', async () => {
    await seed('steps', { quantity: 1 });
    const now = Date.now();
    const a = op('steps', 'adjust', { delta: 0.1 }, now - 3000, 'a');
    const c = op('steps', 'adjust', { delta: 0.2 }, now - 1000, 'c');
    const b = op('steps', 'adjust', { delta: 0.7 }, now - 2000, 'b');
    const res = await sync(mom, { ops: [a, c, b] });
    expect(res.body.results.map((r: any) => r.item.quantity)).toEqual([
      1 + 0.1,
      1 + 0.1 + 0.2,
      1 + 0.1 + 0.7 + 0.2,
    ]);
    expect((await get('steps')).lastUpdated).toBe(now - 1000);
  });

  it('a recount older than some adjusts keeps those after it; an adjust before it changes nothing', async () => {
    await seed('count', { quantity: 10 });
    const now = Date.now();
    const adjusts = [1, 2, 3, 4, 5, 6].map((k) =>
      op('count', 'adjust', { delta: k / 10 }, now - k * MINUTE),
    );
    expect((await sync(dad, { ops: adjusts })).status).toBe(200);
    const recount = op('count', 'update', { quantity: 4 }, now - 3.5 * MINUTE);
    const res = await sync(mom, { ops: [recount] });
    // the adjusts made 1, 2 and 3 minutes ago count after the recount, in time order
    expect(res.body.results[0].item.quantity).toBe(4 + 0.3 + 0.2 + 0.1);
    const before = op('count', 'adjust', { delta: 100 }, now - 4 * MINUTE);
    const after = op('count', 'adjust', { delta: -0.5 }, now - 2.5 * MINUTE);
    const more = await sync(dad, { ops: [before, after] });
    expect(more.body.results.map((r: any) => r.status)).toEqual(['applied', 'applied']);
    expect((await get('count')).quantity).toBe(4 + 0.3 - 0.5 + 0.2 + 0.1);
    // a newer recount ends them all
    const last = await sync(mom, { ops: [op('count', 'update', { quantity: 7 }, now)] });
    expect(last.body.results[0].item.quantity).toBe(7);
    const late = await sync(dad, { ops: [op('count', 'adjust', { delta: 1 }, now - MINUTE / 2)] });
    expect(late.body.results[0].item.quantity).toBe(7);
  });

  it('REST writes, deletes and a whole-inventory PUT start the count again', async () => {
    await seed('rest', { quantity: 3 });
    const now = Date.now();
    await sync(mom, { ops: [op('rest', 'adjust', { delta: 2 }, now - 5000)] });
    const patch = await call(t.app, mom, 'PATCH', '/api/inventory/items/rest', { quantity: 1 });
    expect(patch.body.quantity).toBe(1);
    await sync(mom, { ops: [op('rest', 'adjust', { delta: 0.5 }, Date.now() + 1000)] });
    expect((await get('rest')).quantity).toBe(1.5);
    const snapshot = (await call(t.app, mom, 'GET', '/api/inventory')).body;
    const body = {
      ...snapshot,
      items: snapshot.items.map((i: any) => (i.id === 'rest' ? { ...i, quantity: 9 } : i)),
    };
    expect((await call(t.app, dad, 'PUT', '/api/inventory', body)).status).toBe(200);
    const after = await sync(mom, { ops: [op('rest', 'adjust', { delta: 1 }, Date.now() + 2000)] });
    expect(after.body.results[0].item.quantity).toBe(10);
    expect((await call(t.app, mom, 'DELETE', '/api/inventory/items/rest')).status).toBe(204);
    const put = await call(t.app, mom, 'PUT', '/api/inventory/items/rest', {
      name: 'rest',
      categoryId: 1,
      locationId: 1,
      quantity: 2,
      unit: '',
      unitPrice: 0,
    });
    expect(put.status).toBe(201);
    const again = await sync(mom, { ops: [op('rest', 'adjust', { delta: 1 }, Date.now() + 3000)] });
    expect(again.body.results[0].item.quantity).toBe(3);
  });

  it('adjusts older than the kept history fold into the base; a late one counts from there', async () => {
    await seed('aged', { quantity: 10 });
    const now = Date.now();
    const early = [-1.1, -2.2, 0.4].map((delta, i) =>
      op('aged', 'adjust', { delta }, now - (50 - i * 10) * MINUTE),
    );
    expect((await sync(mom, { ops: early })).status).toBe(200);
    const quantity = 10 + -1.1 + -2.2 + 0.4;
    t.clock.advance(91 * DAY);
    try {
      await t.app.larder.inventory.pruneHistory();
    } finally {
      t.clock.advance(-91 * DAY);
    }
    expect(await get('aged')).toMatchObject({ quantity, lastUpdated: now - 30 * MINUTE });
    // made before the folded ones: counted as made at the history's start, once
    const late = op('aged', 'adjust', { delta: 0.25 }, now - 45 * MINUTE);
    const res = await sync(dad, { ops: [late] });
    expect(res.body.results[0]).toMatchObject({
      status: 'applied',
      item: { quantity: quantity + 0.25 },
    });
    expect((await sync(mom, { ops: [late] })).body.results[0].status).toBe('duplicate');
    const next = await sync(mom, { ops: [op('aged', 'adjust', { delta: 1 }, now - MINUTE)] });
    expect(next.body.results[0].item.quantity).toBe(quantity + 0.25 + 1);
    const recount = await sync(dad, { ops: [op('aged', 'update', { quantity: 3 }, now)] });
    expect(recount.body.results[0].item.quantity).toBe(3);
  });

  it('what is remembered of an op stays small, whatever it sent', async () => {
    const field = 'x'.repeat(20_000);
    const bad = op('flood', 'update', { [field]: 1 }, Date.now());
    const first = await sync(mom, { ops: [bad] });
    expect(first.body.results[0]).toMatchObject({ status: 'rejected', code: 'validation_failed' });
    const again = await sync(dad, { ops: [bad] });
    expect(again.body.results[0].status).toBe('duplicate');
    expect(again.body.results[0].original.code).toBe('validation_failed');
    expect(again.body.results[0].original.message.length).toBeLessThanOrEqual(300);
  });

  it('thousands of adjusts on one item: every op applied once, the sum exact', async () => {
    await seed('flood', { quantity: 0 });
    const start = Date.now() - 60 * MINUTE;
    let want = 0;
    for (let b = 0; b < 4; b++) {
      const ops = Array.from({ length: 1000 }, (_, i) =>
        op('flood', 'adjust', { delta: i % 3 ? -1 : 3 }, start + b * 1000 + i),
      );
      for (let i = 0; i < 1000; i++) want += i % 3 ? -1 : 3;
      const res = await sync(b % 2 ? mom : dad, { ops });
      expect(res.status).toBe(200);
      expect(res.body.results.at(-1).item.quantity).toBe(want);
    }
    expect((await get('flood')).quantity).toBe(want);
  }, 60_000);
});

/** The migrations before adjusts had rows of their own. */
const BEFORE = Object.fromEntries(
  Object.entries(MIGRATIONS).filter(([name]) => name < '20261207_1100'),
);

describe.each(DIALECTS)('an item counted before the upgrade keeps counting (%s)', (dialect) => {
  const envs: Record<string, string>[] = [];
  afterAll(async () => {
    for (const env of envs) await destroyTestEnvironment(env);
  });

  it('its adjusts in merge_state move to their rows and merge as before', async () => {
    const env = testEnvironment(dialect);
    envs.push(env);
    const old = await createDatabase(loadConfig(env));
    const T = Date.now() - 60 * MINUTE;
    const quantity = 10 + -1.1 + -2.2;
    try {
      await migrateToLatest(old.db, BEFORE);
      await seedOldHousehold(old.db, { revision: 1, at: T });
      for (const table of ['categories', 'locations'] as const) {
        await old.db
          .insertInto(table)
          .values({
            inventory_id: 'inv-1',
            id: 1,
            name: 'Home',
            name_key: 'home',
            revision: 1,
            updated_at: T,
          })
          .execute();
      }
      await old.db
        .insertInto('items')
        .values({
          inventory_id: 'inv-1',
          id: 'beans',
          name: 'Beans',
          category_id: 1,
          location_id: 1,
          quantity,
          unit: 'can',
          unit_price: 1,
          kcal_per_kg: null,
          expiry_date: null,
          notes: '',
          last_updated: T + 20_000,
          revision: 1,
          merge_state: JSON.stringify({
            s: [T],
            b: 10,
            a: [
              [T + 10_000, 'op-a', -1.1],
              [T + 20_000, 'op-b', -2.2],
            ],
          }),
        })
        .execute();
    } finally {
      await old.destroy();
    }

    await inTestApp(dialect, { env }, async ({ app }) => {
      const oma = await login(app, 'oma', 'oma-password');
      const sync = (ops: unknown[]) => call(app, oma, 'POST', '/api/inventory/sync', { ops });
      const item = await call(app, oma, 'GET', '/api/inventory/items/beans');
      expect(item.body).toMatchObject({ quantity, lastUpdated: T + 20_000 });
      // an adjust between the two: summed in time order
      const between = await sync([op('beans', 'adjust', { delta: -0.3 }, T + 15_000)]);
      expect(between.body.results[0].item.quantity).toBe(10 + -1.1 + -0.3 + -2.2);
      // a recount between them keeps those after it
      const recount = await sync([op('beans', 'update', { quantity: 5 }, T + 12_000)]);
      expect(recount.body.results[0].item.quantity).toBe(5 + -0.3 + -2.2);
      const later = await sync([op('beans', 'adjust', { delta: 1 }, T + 30_000)]);
      expect(later.body.results[0].item).toMatchObject({
        quantity: 5 + -0.3 + -2.2 + 1,
        lastUpdated: T + 30_000,
      });
    });
  });
});
