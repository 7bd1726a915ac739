import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { call, callsAs, itemBody, wholeInventory } from '#test/inventory/helpers.js';
import { MINUTE, op, useOfflineQueue } from '#test/inventory/offline-helpers.js';
import { importBody } from '#test/inventory/transfer-helpers.js';
import { brief, journalOf } from './journal-helpers.js';

/**
 * Every change of an item's quantity or existence writes one journal row with the write, by
 * whichever path it came (DESIGN "The household's stock over time"); what changes neither writes
 * none.
 */
describe.each(DIALECTS)('the journal records every quantity change (%s)', (dialect) => {
  const { t, mom, dad, sync, seed } = useOfflineQueue(dialect);
  const as = (who: typeof mom) => callsAs(t, who);
  const itemJournal = (id: string) => journalOf(t.app, mom, '', id);
  const who = () => ({ userId: mom.userId, username: 'mom' });

  it('REST: create, set, delete each write one row; a rename or the same content none', async () => {
    const api = as(mom);
    expect(
      (await api('POST', '/api/inventory/items', itemBody({ id: 'rice', quantity: 2 }))).status,
    ).toBe(201);
    // the same content again, a rename, a PUT of the same item: no quantity change
    expect(
      (await api('POST', '/api/inventory/items', itemBody({ id: 'rice', quantity: 2 }))).status,
    ).toBe(200);
    expect((await api('PATCH', '/api/inventory/items/rice', { name: 'Basmati' })).status).toBe(200);
    const patched = await api('PATCH', '/api/inventory/items/rice', { quantity: 5 });
    expect(patched.status).toBe(200);
    expect(
      (
        await api(
          'PUT',
          '/api/inventory/items/rice',
          itemBody({ name: 'Basmati', quantity: 4, lastUpdated: patched.body.lastUpdated }),
        )
      ).status,
    ).toBe(200);
    expect((await api('DELETE', '/api/inventory/items/rice')).status).toBe(204);
    expect((await api('DELETE', '/api/inventory/items/rice')).status).toBe(204);

    const rows = await itemJournal('rice');
    const common = { itemId: 'rice', ...who(), deviceId: null, opId: null, source: 'rest' };
    expect(rows.map(brief)).toEqual([
      { ...common, itemName: 'Basmati', kind: 'delete', delta: -4, quantityAfter: 0 },
      { ...common, itemName: 'Basmati', kind: 'set', delta: -1, quantityAfter: 4 },
      { ...common, itemName: 'Basmati', kind: 'set', delta: 3, quantityAfter: 5 },
      { ...common, itemName: 'Rice', kind: 'create', delta: 2, quantityAfter: 2 },
    ]);
    expect(new Set(rows.map((r) => r.id)).size).toBe(4);
    expect(rows.every((r) => typeof r.at === 'number' && r.at > 0)).toBe(true);
  });

  it('a refused write (out of range, stale) writes no row', async () => {
    await seed('flour', { quantity: 1 });
    const api = as(mom);
    expect((await api('PATCH', '/api/inventory/items/flour', { quantity: 2e12 })).status).toBe(400);
    expect(
      (
        await api(
          'PUT',
          '/api/inventory/items/flour',
          itemBody({ name: 'flour', quantity: 9, lastUpdated: 1 }),
        )
      ).status,
    ).toBe(409);
    expect((await itemJournal('flour')).map((r) => r.kind)).toEqual(['create']);
  });

  it('the offline queue: one row per op with its op id and device; duplicates and no-ops none', async () => {
    await seed('beans', { quantity: 10 });
    const now = Date.now();
    const use = op('beans', 'adjust', { delta: -2 }, now - 3 * MINUTE, 'use-1');
    const body = {
      deviceId: 'dads-phone',
      ops: [
        use,
        op('beans', 'update', { quantity: 6 }, now - 2 * MINUTE, 'set-1'),
        op('beans', 'adjust', { delta: 0 }, now - MINUTE, 'zero-1'),
        op('peas', 'create', itemBody({ name: 'Peas', quantity: 3 }), now - MINUTE, 'new-1'),
        op('gone', 'adjust', { delta: -1 }, now, 'rejected-1'),
      ],
    };
    const first = await sync(dad, body);
    expect(first.status).toBe(200);
    expect(first.body.results.map((r: any) => r.status)).toEqual([
      'applied',
      'applied',
      'applied',
      'applied',
      'rejected',
    ]);
    // the same batch again: every op is a duplicate; an old edit that loses to a newer one changes nothing
    expect((await sync(dad, body)).body.results.slice(0, 4).map((r: any) => r.status)).toEqual([
      'duplicate',
      'duplicate',
      'duplicate',
      'duplicate',
    ]);
    const stale = await sync(dad, {
      deviceId: 'dads-phone',
      ops: [op('beans', 'update', { quantity: 99 }, now - 10 * MINUTE, 'stale-1')],
    });
    expect(stale.body.results[0].status).toBe('merged');

    const common = { userId: dad.userId, username: 'dad', deviceId: 'dads-phone', source: 'sync' };
    expect((await itemJournal('beans')).map(brief)).toEqual([
      {
        ...common,
        itemId: 'beans',
        itemName: 'beans',
        opId: 'set-1',
        kind: 'set',
        delta: -2,
        quantityAfter: 6,
      },
      {
        ...common,
        itemId: 'beans',
        itemName: 'beans',
        opId: 'use-1',
        kind: 'adjust',
        delta: -2,
        quantityAfter: 8,
      },
      {
        itemId: 'beans',
        itemName: 'beans',
        ...who(),
        deviceId: null,
        opId: null,
        source: 'rest',
        kind: 'create',
        delta: 10,
        quantityAfter: 10,
      },
    ]);
    expect((await itemJournal('peas')).map(brief)).toEqual([
      {
        ...common,
        itemId: 'peas',
        itemName: 'Peas',
        opId: 'new-1',
        kind: 'create',
        delta: 3,
        quantityAfter: 3,
      },
    ]);
    expect(await itemJournal('gone')).toEqual([]);

    const del = await sync(dad, { ops: [op('peas', 'delete', undefined, Date.now(), 'del-1')] });
    expect(del.body.results[0].status).toBe('applied');
    expect((await itemJournal('peas'))[0]).toMatchObject({
      kind: 'delete',
      delta: -3,
      quantityAfter: 0,
      opId: 'del-1',
      deviceId: null,
    });
  });

  it('PATCHes of one item sent at once: one row each, chained quantity to quantity', async () => {
    await seed('eggs', { quantity: 0 });
    const api = as(mom);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        api('PATCH', '/api/inventory/items/eggs', { quantity: i + 1 }),
      ),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const rows = (await itemJournal('eggs')).reverse(); // oldest first
    expect(rows[0]).toMatchObject({ kind: 'create', quantityAfter: 0 });
    const sets = rows.slice(1);
    expect(sets.length).toBeGreaterThan(0);
    let quantity = 0;
    for (const row of sets) {
      expect(row).toMatchObject({
        kind: 'set',
        source: 'rest',
        delta: row.quantityAfter - quantity,
      });
      quantity = row.quantityAfter;
    }
    expect(quantity).toBe((await api('GET', '/api/inventory/items/eggs')).body.quantity);
  });

  it('a batch refused as a whole writes no row', async () => {
    await seed('salt', { quantity: 1 });
    const res = await sync(dad, {
      since: 1_000_000,
      ops: [op('salt', 'adjust', { delta: 1 }, Date.now(), 'ahead-1')],
    });
    expect(res.status).toBe(400);
    expect((await itemJournal('salt')).map((r) => r.kind)).toEqual(['create']);
  });
});

describe.each(DIALECTS)('the journal of whole-inventory writes (%s)', (dialect) => {
  const { t, mom } = useOfflineQueue(dialect);
  const journal = () => journalOf(t.app, mom);

  beforeAll(async () => {
    expect((await call(t.app, mom, 'PUT', '/api/inventory', wholeInventory(3))).status).toBe(200);
  });

  it('PUT /api/inventory: a row per item created, changed in quantity or removed; none for the same', async () => {
    const before = (await journal()).length;
    expect(before).toBe(3);
    const next = wholeInventory(3);
    next.items = next.items.slice(1); // item-0 goes
    next.items[0]!.quantity = 7; // item-1 changes
    next.items[1]!.name = 'Renamed'; // item-2 only renamed
    next.items.push(itemBody({ id: 'item-9', name: 'New', quantity: 1 }) as any);
    expect((await call(t.app, mom, 'PUT', '/api/inventory', next)).status).toBe(200);
    expect((await call(t.app, mom, 'PUT', '/api/inventory', next)).status).toBe(200);
    const rows = (await journal()).slice(0, -before);
    expect(rows.map((r) => [r.itemId, r.kind, r.delta, r.quantityAfter, r.source])).toEqual(
      expect.arrayContaining([
        ['item-0', 'delete', -2, 0, 'sync'],
        ['item-1', 'set', 5, 7, 'sync'],
        ['item-9', 'create', 1, 1, 'sync'],
      ]),
    );
    expect(rows).toHaveLength(3);
  });

  it('an applied import journals its creates and quantity changes as `import`; a dry run none', async () => {
    const csv = 'name,category,location,quantity\r\nOats,Food,Pantry,4\n';
    expect((await importBody(t.app, mom, csv)).statusCode).toBe(200);
    const before = (await journal()).length;
    const res = await importBody(t.app, mom, csv, '?apply=true');
    expect(res.statusCode, res.body).toBe(200);
    const rows = await journal();
    expect(rows).toHaveLength(before + 1);
    expect(brief(rows[0]!)).toMatchObject({
      itemName: 'Oats',
      source: 'import',
      kind: 'create',
      delta: 4,
      quantityAfter: 4,
      opId: null,
      username: 'mom',
    });
  });
});
