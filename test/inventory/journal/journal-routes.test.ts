import { describe, expect, it } from 'vitest';
import { DIALECTS, login } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { call, callsAs, itemBody, seedBasics, share } from '#test/inventory/helpers.js';
import { DAY, op, useOfflineQueue } from '#test/inventory/offline-helpers.js';
import { journalOf } from './journal-helpers.js';

describe.each(DIALECTS)('reading the journal (%s)', (dialect) => {
  const { t, mom, dad, sync, seed } = useOfflineQueue(dialect);
  const [stranger] = t.users('stranger');

  it('pages newest first by time; rows of one write stay together across the limit', async () => {
    await seed('tea', { quantity: 10 }); // row 1
    t.clock.advance(1000);
    const now = Date.now();
    const ops = [1, 2, 3].map((n) =>
      op('tea', 'adjust', { delta: -n }, now - 10_000 + n, `tea-${n}`),
    );
    expect((await sync(mom, { ops })).status).toBe(200); // rows 2-4, one time
    t.clock.advance(1000);
    const api = callsAs(t, mom);
    expect((await api('PATCH', '/api/inventory/items/tea', { quantity: 20 })).status).toBe(200); // row 5

    const all = await journalOf(t.app, mom, '', 'tea');
    expect(all.map((r) => r.quantityAfter)).toEqual([20, 4, 7, 9, 10]);
    const first = await journalOf(t.app, mom, '?limit=2', 'tea');
    // the second row's time is shared by the batch's other two: they come along
    expect(first.map((r) => r.quantityAfter)).toEqual([20, 4, 7, 9]);
    const next = await journalOf(t.app, mom, `?limit=2&before=${first.at(-1)!.at}`, 'tea');
    expect(next.map((r) => r.quantityAfter)).toEqual([10]);
    expect(await journalOf(t.app, mom, `?before=${next[0]!.at}`, 'tea')).toEqual([]);
    // the inventory's journal holds the same rows
    expect((await journalOf(t.app, mom, '?limit=200')).filter((r) => r.itemId === 'tea')).toEqual(
      all,
    );
  });

  it("filters by user; a member of another inventory never sees this one's rows", async () => {
    await seed('jam', { quantity: 2 });
    const res = await sync(dad, {
      deviceId: 'tablet',
      ops: [op('jam', 'adjust', { delta: -1 }, Date.now())],
    });
    expect(res.status).toBe(200);
    const dads = await journalOf(t.app, mom, `?userId=${dad.userId}`);
    expect(dads.length).toBeGreaterThan(0);
    expect(dads.every((r) => r.userId === dad.userId && r.username === 'dad')).toBe(true);
    expect(await journalOf(t.app, stranger, '')).toEqual([]);
    expect(await journalOf(t.app, stranger, '', 'jam')).toEqual([]);
  });

  it('bad paging is 400 validation_failed; no token is 401', async () => {
    for (const query of ['limit=0', 'limit=201', 'limit=x', 'before=-1', 'before=1.5', 'userId=']) {
      for (const url of ['/api/inventory/journal', '/api/inventory/items/jam/journal']) {
        const res = await call(t.app, mom, 'GET', `${url}?${query}`);
        expect(res.status, `${url}?${query}`).toBe(400);
        expect(res.body).toMatchObject({ code: 'validation_failed' });
      }
    }
    expect((await call(t.app, mom, 'GET', '/api/inventory/items/bad%20id/journal')).status).toBe(
      400,
    );
    expect((await call(t.app, null, 'GET', '/api/inventory/journal')).status).toBe(401);
  });

  it("a deleted user's rows keep their name", async () => {
    const gran = await t.createUser('gran');
    await share(t.app, t.admin, mom, gran);
    const made = await call(
      t.app,
      gran,
      'POST',
      '/api/inventory/items',
      itemBody({ id: 'cake', quantity: 1 }),
    );
    expect(made.status).toBe(201);
    const del = await call(t.app, t.admin, 'DELETE', `/api/admin/users/${gran.userId}`);
    expect(del.status).toBe(204);
    const [row] = await journalOf(t.app, mom, '', 'cake');
    expect(row).toMatchObject({ userId: null, username: 'gran', kind: 'create', delta: 1 });
  });

  it('rows older than LARDER_JOURNAL_DAYS are pruned; newer ones stay', async () => {
    await seed('old', { quantity: 1 });
    t.clock.advance(300 * DAY);
    try {
      // the tokens of 300 days ago have expired
      const later = await login(t.app, 'mom', 'mom-password');
      expect(
        (await call(t.app, later, 'PATCH', '/api/inventory/items/old', { quantity: 2 })).status,
      ).toBe(200);
      t.clock.advance(101 * DAY);
      await t.app.larder.inventory.journal.prune();
      const again = await login(t.app, 'mom', 'mom-password');
      expect((await journalOf(t.app, again, '', 'old')).map((r) => r.quantityAfter)).toEqual([2]);
    } finally {
      t.clock.advance(-401 * DAY);
    }
  });
});

describe.each(DIALECTS)('LARDER_JOURNAL_DAYS=0 (%s)', (dialect) => {
  const t = useTestApp(dialect, { extraEnv: { LARDER_JOURNAL_DAYS: '0' } });
  const [anna] = t.users('anna');

  it('writes no journal', async () => {
    await seedBasics(t.app, anna);
    expect(
      (await call(t.app, anna, 'POST', '/api/inventory/items', itemBody({ id: 'a' }))).status,
    ).toBe(201);
    expect(
      (await call(t.app, anna, 'PATCH', '/api/inventory/items/a', { quantity: 9 })).status,
    ).toBe(200);
    expect(
      (await call(t.app, anna, 'PATCH', '/api/inventory/items/a', { quantity: 8 })).status,
    ).toBe(200);
    expect(await journalOf(t.app, anna)).toEqual([]);
  });
});
