import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, login, loginAsAdmin, type Session } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { callsAs, itemBody, wholeInventory } from '#test/inventory/helpers.js';

/**
 * GET /api/inventory/readiness (docs/api.md, "Readiness"). Every figure below is worked out by
 * hand from the items, settings and uses the test wrote.
 */

const DAY = 24 * 3600 * 1000;
const idsOf = (list: { itemId: string }[]) => list.map((r) => r.itemId);

/** The whole answer for a household of one on the default 10 days' goal that it misses, with no use. */
const missedByOne = (figures: {
  food: object;
  water: object;
  days: number;
  shortfall: object;
}) => ({
  householdSize: 1,
  goalDays: 10,
  goalMet: false,
  runOut: [],
  expiringBeforeUse: [],
  ...figures,
});

describe.each(DIALECTS)('readiness (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const [anna, ben, carl, dora, erik] = t.users('anna', 'ben', 'carl', 'dora', 'erik');
  const annaCalls = callsAs(t, anna);
  const readiness = async (who: Session = anna) => {
    const res = await callsAs(t, who)('GET', '/api/inventory/readiness');
    expect(res.status).toBe(200);
    return res.body;
  };
  const put = (id: string, fields: Record<string, unknown>) =>
    annaCalls('PUT', `/api/inventory/items/${id}`, itemBody({ name: id, ...fields }));
  const settings = (values: Record<string, string>) =>
    annaCalls('PUT', '/api/inventory/settings', values);

  it('an empty inventory: nothing in stock, the defaults, the goal missed by all of it', async () => {
    expect(await readiness(ben)).toEqual(
      missedByOne({
        food: { kcal: 0, days: 0, itemsWithoutKcal: 0 },
        water: { liters: 0, days: 0 },
        days: 0,
        shortfall: { kcal: 22000, liters: 20 },
      }),
    );
  });

  describe('food and water', () => {
    beforeAll(async () => {
      await annaCalls('PUT', '/api/inventory/categories/1', { name: 'Food' });
      await annaCalls('PUT', '/api/inventory/categories/2', { name: 'WASSER' });
      await annaCalls('PUT', '/api/inventory/categories/3', { name: 'Drinks' });
      await annaCalls('PUT', '/api/inventory/locations/1', { name: 'Cellar' });
      // food: 5 kg × 3600 + 0.5 kg × 3500 + 1 l × 450 = 18000 + 1750 + 450 = 20200 kcal
      await put('rice', { quantity: 5, unit: 'kg', kcalPerKg: 3600 });
      await put('pasta', { quantity: 500, unit: 'g', kcalPerKg: 3500 });
      await put('juice', { categoryId: 3, quantity: 1, unit: 'l', kcalPerKg: 450 });
      // food without kcal: a unit that is no mass, and no kcalPerKg
      await put('cans', { quantity: 3, unit: 'pcs', kcalPerKg: 800 });
      await put('herbs', { quantity: 0.25, unit: 'kg', kcalPerKg: null });
      // water: 12 Liter + 1500 ml + 0.75 l = 14.25 l; the crate has no volume unit
      await put('bottles', { categoryId: 2, quantity: 12, unit: 'Liter', kcalPerKg: null });
      await put('small', { categoryId: 2, quantity: 1500, unit: ' ml ', kcalPerKg: null });
      await put('sparkling', { categoryId: 2, quantity: 0.75, unit: 'l', kcalPerKg: 0 });
      await put('crate', { categoryId: 2, quantity: 2, unit: 'pcs', kcalPerKg: null });
    });

    /** what these items give with the default settings */
    const atTheDefaults = missedByOne({
      // 20200 / 2200 = 9.18 days
      food: { kcal: 20200, days: 9.2, itemsWithoutKcal: 2 },
      // 14.25 / 2 = 7.125 days
      water: { liters: 14.25, days: 7.1 },
      days: 7.1,
      // 10 × 2200 − 20200; 10 × 2 − 14.25
      shortfall: { kcal: 1800, liters: 5.75 },
    });

    it('counts kcal without the water category and litres of its volume units only', async () => {
      expect(await readiness()).toEqual(atTheDefaults);
    });

    it('the household settings scale every figure; the goal met has no shortfall', async () => {
      await settings({
        householdSize: '2',
        dailyKcal: '2500',
        dailyWaterLiters: '1.25',
        goalDays: '3',
      });
      expect(await readiness()).toMatchObject({
        householdSize: 2,
        goalDays: 3,
        food: { kcal: 20200, days: 4 }, // 20200 / (2 × 2500) = 4.04
        water: { liters: 14.25, days: 5.7 }, // 14.25 / (2 × 1.25)
        days: 4,
        goalMet: true,
        shortfall: { kcal: 0, liters: 0 },
      });
      await settings({ goalDays: '5' }); // needs 25000 kcal and 12.5 l
      expect(await readiness()).toMatchObject({
        goalDays: 5,
        goalMet: false,
        shortfall: { kcal: 4800, liters: 0 },
      });
    });

    it('waterCategoryId names the water category; food then counts the other one', async () => {
      await settings({ waterCategoryId: '3' });
      expect(await readiness()).toMatchObject({
        // 20200 − 450 (juice is water now); the Wasser items are food without kcal
        // (12 Liter, 1500 ml, 2 pcs without kcalPerKg; 0.75 l at 0 kcal counts, as 0)
        food: { kcal: 19750, itemsWithoutKcal: 5 },
        water: { liters: 1, days: 0.4 }, // 1 / (2 × 1.25)
        days: 0.4,
        shortfall: { kcal: 5250, liters: 11.5 }, // 25000 − 19750; 12.5 − 1
      });
    });

    it('unusable stored settings fall back to the defaults', async () => {
      const unusable = { householdSize: 'many', dailyKcal: '-5', dailyWaterLiters: '' };
      await settings({ ...unusable, goalDays: 'ten', waterCategoryId: '999' });
      expect(await readiness()).toEqual(atTheDefaults);
    });
  });

  describe('use over the last 90 days', () => {
    const carlCalls = callsAs(t, carl);
    const dateIn = (days: number) =>
      new Date(t.clock.now() + days * DAY).toISOString().slice(0, 10);
    /** A change of `delta` to the item, `daysAgo` days before now, in the journal. */
    const journal = async (itemId: string, delta: number, daysAgo: number) => {
      await t.app.larder.database.db
        .insertInto('journal')
        .values({
          id: crypto.randomUUID(),
          inventory_id: carl.inventoryId!,
          at: t.clock.now() - daysAgo * DAY,
          item_id: itemId,
          item_name: itemId,
          user_id: carl.userId,
          username: carl.username,
          device_id: null,
          op_id: null,
          source: 'rest',
          kind: 'adjust',
          delta,
          quantity_after: 0,
        })
        .execute();
    };
    const item = (id: string, quantity: number, expiryDate: string | null) =>
      carlCalls(
        'PUT',
        `/api/inventory/items/${id}`,
        itemBody({ name: id, quantity, unit: 'pcs', expiryDate }),
      );

    beforeAll(async () => {
      await carlCalls('PUT', '/api/inventory/categories/1', { name: 'Food' });
      await carlCalls('PUT', '/api/inventory/locations/1', { name: 'Pantry' });
      // beans: 2 left, used 10 + 8 (the +5 bought does not count): 18 / 90 = 0.2 a day → 10 days
      await item('beans', 2, null);
      await journal('beans', -10, 80);
      await journal('beans', 5, 40);
      await journal('beans', -8, 1);
      // milk: 1 left, used 27: 0.3 a day → 3.33 days
      await item('milk', 1, null);
      await journal('milk', -27, 30);
      // bread: none left, used 9: 0.1 a day → 0 days
      await item('bread', 0, null);
      await journal('bread', -9, 2);
      // soup: used 91 days ago only: no rate
      await item('soup', 1, null);
      await journal('soup', -50, 91);
      // tea: only bought: no rate
      await item('tea', 1, dateIn(1));
      await journal('tea', 20, 3);
      // yogurt: 5 left, 0.5 a day, expires in 4 days: 5 − 2 = 3 left then; lasts 10 days
      await item('yogurt', 5, dateIn(4));
      await journal('yogurt', -45, 10);
      // cheese: 2 left, 0.5 a day, expires in 6 days: used up on day 4; runs out in 4 days
      await item('cheese', 2, dateIn(6));
      await journal('cheese', -45, 10);
      // ham: 3 left, 0.1 a day, expired yesterday: all 3 are left at its expiry
      await item('ham', 3, dateIn(-1));
      await journal('ham', -9, 5);
      // gone: used, then deleted: not listed
      await item('gone', 1, null);
      await journal('gone', -90, 5);
      await carlCalls('DELETE', '/api/inventory/items/gone');
    });

    it('lists what runs out before the goal and what expires before it is used', async () => {
      const body = await readiness(carl);
      expect(body.runOut).toEqual([
        { itemId: 'bread', name: 'bread', daysLeft: 0 },
        { itemId: 'milk', name: 'milk', daysLeft: 3.3 },
        { itemId: 'cheese', name: 'cheese', daysLeft: 4 },
      ]);
      expect(body.expiringBeforeUse).toEqual([
        { itemId: 'ham', name: 'ham', expiryDate: dateIn(-1), quantity: 3, projectedLeft: 3 },
        { itemId: 'yogurt', name: 'yogurt', expiryDate: dateIn(4), quantity: 5, projectedLeft: 3 },
      ]);
    });

    it('a longer goal lists what lasts exactly the old goal', async () => {
      await carlCalls('PUT', '/api/inventory/settings', { goalDays: '11' });
      const body = await readiness(carl);
      expect(idsOf(body.runOut)).toEqual(['bread', 'milk', 'cheese', 'beans', 'yogurt']);
      expect(body.runOut.slice(3)).toEqual([
        { itemId: 'beans', name: 'beans', daysLeft: 10 },
        { itemId: 'yogurt', name: 'yogurt', daysLeft: 10 },
      ]);
    });

    it('use older than 90 days drops out as time passes', async () => {
      t.clock.advance(11 * DAY); // beans' 10 used 80 days ago is 91 days old now
      Object.assign(carl, await login(t.app, 'carl', 'carl-password'));
      const body = await readiness(carl);
      // beans: 8 / 90 a day → 2 / (8 / 90) = 22.5 days: off the list (the goal is 11 days)
      expect(idsOf(body.runOut)).toEqual(['bread', 'milk', 'cheese', 'yogurt']);
      // yogurt and cheese expired 7 and 5 days ago now: all they hold is left at their expiry
      expect(
        body.expiringBeforeUse.map((r: { itemId: string; projectedLeft: number }) => [
          r.itemId,
          r.projectedLeft,
        ]),
      ).toEqual([
        ['ham', 3],
        ['yogurt', 5],
        ['cheese', 2],
      ]);
    });
  });

  it("the admin reads any inventory's readiness as its members see it", async () => {
    // the clock moved on above: fresh tokens
    const admin = callsAs(t, await loginAsAdmin(t.app));
    Object.assign(anna, await login(t.app, 'anna', 'anna-password'));
    const seen = await admin('GET', `/api/admin/inventories/${carl.inventoryId}/readiness`);
    expect(seen).toEqual({ status: 200, body: await readiness(carl) });
    const unknown = await admin('GET', `/api/admin/inventories/${crypto.randomUUID()}/readiness`);
    expect(unknown).toMatchObject({ status: 404, body: { code: 'not_found' } });
    const malformed = await admin('GET', '/api/admin/inventories/not-an-id/readiness');
    expect(malformed).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
    const member = await annaCalls('GET', `/api/admin/inventories/${carl.inventoryId}/readiness`);
    expect(member).toMatchObject({ status: 403, body: { code: 'forbidden' } });
  });

  it('counts every item of a large inventory (the reads go a page at a time)', async () => {
    // 5,200 items of 1 kg at 1000 kcal; the first 1,100 used 90 each in the window: 1 a day
    const items = 5_200;
    const used = 1_100;
    Object.assign(dora, await login(t.app, 'dora', 'dora-password')); // the clock moved on
    const body = wholeInventory(items, { settings: {} });
    for (const item of body.items)
      Object.assign(item, { quantity: 1, unit: 'kg', kcalPerKg: 1000 });
    expect((await callsAs(t, dora)('PUT', '/api/inventory', body)).status).toBe(200);
    const rows = body.items.slice(0, used).map((item) => ({
      id: crypto.randomUUID(),
      inventory_id: dora.inventoryId!,
      at: t.clock.now() - DAY,
      item_id: String(item.id),
      item_name: String(item.id),
      user_id: dora.userId,
      username: dora.username,
      device_id: null,
      op_id: null,
      source: 'rest' as const,
      kind: 'adjust' as const,
      delta: -90,
      quantity_after: 1,
    }));
    for (let i = 0; i < rows.length; i += 200) {
      await t.app.larder.database.db
        .insertInto('journal')
        .values(rows.slice(i, i + 200))
        .execute();
    }
    const body2 = await readiness(dora);
    expect(body2.food).toEqual({ kcal: 5_200_000, days: 2363.6, itemsWithoutKcal: 0 });
    expect(body2.runOut).toHaveLength(used);
    expect(new Set(idsOf(body2.runOut)).size).toBe(used);
    expect(body2.runOut.every((r: { daysLeft: number }) => r.daysLeft === 1)).toBe(true);
  });

  it('use written through the item routes and the offline queue counts; additions do not', async () => {
    Object.assign(erik, await login(t.app, 'erik', 'erik-password')); // the clock moved on
    const erikCalls = callsAs(t, erik);
    await erikCalls('PUT', '/api/inventory/categories/1', { name: 'Food' });
    await erikCalls('PUT', '/api/inventory/locations/1', { name: 'Pantry' });
    const now = t.clock.now();
    const flour = itemBody({ name: 'Flour', quantity: 10, unit: 'kg', lastUpdated: now });
    expect((await erikCalls('PUT', '/api/inventory/items/flour', flour)).status).toBe(201);
    // a recount from 10 to 2.5 (−7.5), bought 1 (+1), one used offline (−1.5): 9 used, 0.1 a day
    const patch = (quantity: number, at: number) =>
      erikCalls('PATCH', '/api/inventory/items/flour', { quantity, lastUpdated: at });
    expect((await patch(2.5, now + 1)).status).toBe(200);
    expect((await patch(3.5, now + 2)).status).toBe(200);
    const sync = await erikCalls('POST', '/api/inventory/sync', {
      since: 0,
      ops: [
        {
          id: crypto.randomUUID(),
          itemId: 'flour',
          operation: 'adjust',
          payload: { delta: -1.5 },
          createdAt: now + 3,
        },
      ],
    });
    expect(sync.status).toBe(200);
    const body = await readiness(erik);
    // 2 left at 0.1 a day: 20 days (goal 10, so not listed); 2 kg × 3600 kcal
    expect(body.food.kcal).toBe(7200);
    expect(body.runOut).toEqual([]);
    await erikCalls('PUT', '/api/inventory/settings', { goalDays: '21' });
    expect((await readiness(erik)).runOut).toEqual([
      { itemId: 'flour', name: 'Flour', daysLeft: 20 },
    ]);
    // 91 days on, that use has left the window: no rate, in no list
    t.clock.advance(91 * DAY);
    Object.assign(erik, await login(t.app, 'erik', 'erik-password'));
    expect((await readiness(erik)).runOut).toEqual([]);
  });

  it("the admin reads any inventory's journal, newest first, as its members do", async () => {
    const admin = callsAs(t, await loginAsAdmin(t.app));
    const url = `/api/admin/inventories/${erik.inventoryId}/journal`;
    const seen = await admin('GET', `${url}?limit=10`);
    expect(seen.status).toBe(200);
    expect(
      seen.body.entries.map((e: any) => [e.username, e.source, e.kind, e.itemName, e.delta]),
    ).toEqual([
      ['erik', 'sync', 'adjust', 'Flour', -1.5],
      ['erik', 'rest', 'set', 'Flour', 1],
      ['erik', 'rest', 'set', 'Flour', -7.5],
      ['erik', 'rest', 'create', 'Flour', 10],
    ]);
    const own = await callsAs(t, erik)('GET', '/api/inventory/journal?limit=10');
    expect(own.body).toEqual(seen.body);
    const unknown = await admin('GET', `/api/admin/inventories/${crypto.randomUUID()}/journal`);
    expect(unknown).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect((await admin('GET', `${url}?limit=500`)).status).toBe(400);
    const member = await callsAs(t, erik)('GET', url);
    expect(member).toMatchObject({ status: 403, body: { code: 'forbidden' } });
  });
});
