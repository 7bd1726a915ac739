import { describe, expect, it } from 'vitest';
import { DIALECTS, loginAsAdmin } from '#test/helpers/app.js';
import { inTestApp, useTestApp } from '#test/helpers/fixtures.js';

const SOME_ID = '00000000-0000-4000-8000-000000000000';

describe.each(DIALECTS)('inventory sharing rules (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const { admin } = t;
  const api = (method: string, url: string, payload?: object) =>
    t.app.inject({ method: method as 'GET', url, payload, headers: admin.headers });
  const inventories = async () => (await api('GET', '/api/admin/inventories')).json();
  const inventoryOf = async (userId: string) =>
    (await api('GET', '/api/admin/users')).json().find((u: { id: string }) => u.id === userId)
      .inventoryId;

  it('two new users get two separate inventories; assign makes them share; detach gives an empty one; the last member leaving removes it', async () => {
    const hana = await t.createUser('hana');
    const ivan = await t.createUser('ivan');
    expect(hana.inventoryId).not.toBe(ivan.inventoryId);
    expect(await inventories()).toHaveLength(3);

    // rule 2: assign; rule 4: ivan's old inventory has nobody left and is removed
    const assigned = await api('PUT', `/api/admin/users/${ivan.userId}/inventory`, {
      inventoryId: hana.inventoryId,
    });
    expect(assigned.statusCode).toBe(200);
    expect(assigned.json()).toMatchObject({ id: ivan.userId, inventoryId: hana.inventoryId });
    const shared = (await inventories()).find(
      (i: { inventoryId: string }) => i.inventoryId === hana.inventoryId,
    );
    expect(shared.users.map((u: { username: string }) => u.username)).toEqual(['hana', 'ivan']);
    expect(
      (await inventories()).some(
        (i: { inventoryId: string }) => i.inventoryId === ivan.inventoryId,
      ),
    ).toBe(false);
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: ivan.headers });
    expect(me.json().inventoryId).toBe(hana.inventoryId);

    // rule 3: detach into a new, empty inventory; hana's stays
    const detached = await api('POST', `/api/admin/users/${ivan.userId}/inventory/new`);
    expect(detached.statusCode).toBe(200);
    const fresh = detached.json().inventoryId;
    expect(fresh).not.toBe(hana.inventoryId);
    const stats = (await api('GET', '/api/admin/stats/inventories')).json();
    expect(stats.find((s: { inventoryId: string }) => s.inventoryId === fresh)).toMatchObject({
      totalItems: 0,
      totalCategories: 0,
      totalLocations: 0,
      userCount: 1,
    });

    // rule 4 through deletion: deleting the last member removes the inventory
    expect((await api('DELETE', `/api/admin/users/${ivan.userId}`)).statusCode).toBe(204);
    expect(
      (await inventories()).some((i: { inventoryId: string }) => i.inventoryId === fresh),
    ).toBe(false);
    expect(await inventoryOf(hana.userId)).toBe(hana.inventoryId);
  });

  it('assigning a user to the inventory they are in changes nothing', async () => {
    const jan = await t.createUser('jan');
    const res = await api('PUT', `/api/admin/users/${jan.userId}/inventory`, {
      inventoryId: jan.inventoryId,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().inventoryId).toBe(jan.inventoryId);
    expect(
      (await inventories()).some((i: { inventoryId: string }) => i.inventoryId === jan.inventoryId),
    ).toBe(true);
  });

  it('404 for an unknown user or inventory, 400 for malformed ids or bodies, nothing changed', async () => {
    const kim = await t.createUser('kim');
    const cases: [string, string, object | undefined, number][] = [
      ['PUT', `/api/admin/users/${SOME_ID}/inventory`, { inventoryId: kim.inventoryId }, 404],
      ['POST', `/api/admin/users/${SOME_ID}/inventory/new`, undefined, 404],
      ['PUT', `/api/admin/users/${kim.userId}/inventory`, { inventoryId: SOME_ID }, 404],
      ['PUT', `/api/admin/users/${kim.userId}/inventory`, { inventoryId: 'nope' }, 400],
      ['PUT', `/api/admin/users/${kim.userId}/inventory`, {}, 400],
      ['PUT', '/api/admin/users/xyz/inventory', { inventoryId: kim.inventoryId }, 400],
      ['PUT', `/api/admin/inventories/${SOME_ID}`, { name: 'Nowhere' }, 404],
      ['PUT', `/api/admin/inventories/${kim.inventoryId}`, { name: 'x'.repeat(101) }, 400],
      ['PUT', `/api/admin/inventories/${kim.inventoryId}`, { name: 42 }, 400],
    ];
    for (const [method, url, payload, status] of cases) {
      const res = await api(method, url, payload);
      expect({ url, status: res.statusCode }).toEqual({ url, status });
      expect(Object.keys(res.json()).sort()).toEqual(['code', 'message']);
    }
    expect(await inventoryOf(kim.userId)).toBe(kim.inventoryId);
  });

  it('assigning into an inventory while its last member leaves never strands a user or fails with 500', async () => {
    for (let round = 0; round < 12; round++) {
      const mover = await t.createUser(`mover${round}`);
      const leaver = await t.createUser(`leaver${round}`);
      const leave =
        round % 2 === 0
          ? api('DELETE', `/api/admin/users/${leaver.userId}`)
          : api('POST', `/api/admin/users/${leaver.userId}/inventory/new`);
      const [assigned, left] = await Promise.all([
        api('PUT', `/api/admin/users/${mover.userId}/inventory`, {
          inventoryId: leaver.inventoryId,
        }),
        leave,
      ]);
      expect([200, 204]).toContain(left.statusCode);
      expect([200, 404]).toContain(assigned.statusCode);
      const current = await inventoryOf(mover.userId);
      expect(current).toBe(assigned.statusCode === 200 ? leaver.inventoryId : mover.inventoryId);
      const ids = (await inventories()).map((i: { inventoryId: string }) => i.inventoryId);
      expect(ids).toContain(current);
    }
  });

  it('renaming sets inventoryName in statistics and counts as a recent change', async () => {
    const lea = await t.createUser('lea');
    const res = await api('PUT', `/api/admin/inventories/${lea.inventoryId}`, {
      name: '  Lea & family ',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ inventoryId: lea.inventoryId, name: 'Lea & family' });
    const per = (await api('GET', '/api/admin/stats/inventories')).json();
    const row = per.find((s: { inventoryId: string }) => s.inventoryId === lea.inventoryId);
    expect(row).toMatchObject({
      inventoryName: 'Lea & family',
      recentTransactions: 1,
      userCount: 1,
    });
    expect(row.lastUpdated).toBeGreaterThan(Date.now() - 60_000);
    const totals = (await api('GET', '/api/admin/stats')).json();
    expect(Object.keys(totals).sort()).toEqual([
      'lastUpdated',
      'recentTransactions',
      'totalCategories',
      'totalItems',
      'totalLocations',
    ]);
    expect(totals.recentTransactions).toBeGreaterThanOrEqual(1);
    // outside the 30-day window the change no longer counts as recent
    t.clock.advance(31 * 24 * 3600 * 1000);
    Object.assign(admin, await loginAsAdmin(t.app)); // the earlier access token has long expired
    const later = (await api('GET', '/api/admin/stats/inventories')).json();
    expect(
      later.find((s: { inventoryId: string }) => s.inventoryId === lea.inventoryId)
        .recentTransactions,
    ).toBe(0);
  });
});

describe.each(DIALECTS)('restart (%s)', (dialect) => {
  const first = useTestApp(dialect);

  it('a restart with the same data keeps users, inventories and sessions', async () => {
    const mia = await first.createUser('mia');
    await first.close();
    const env = { ...first.env, LARDER_ADMIN_PASSWORD: 'changed-in-env-1' };
    await inTestApp(dialect, { env }, async (second) => {
      const me = await second.app.inject({
        method: 'GET',
        url: '/api/auth/me',
        headers: mia.headers,
      });
      expect(me.statusCode).toBe(200);
      expect(me.json()).toMatchObject({ username: 'mia', inventoryId: mia.inventoryId });
      // the seed admin's password is never overwritten by start-up
      await loginAsAdmin(second.app);
    });
  });
});
