import { describe, expect, it } from 'vitest';
import { DIALECTS, login } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { call, itemBody, seedBasics } from '#test/inventory/helpers.js';

const DAY = 24 * 3600 * 1000;

describe.each(DIALECTS)('the supply summary (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const anna = t.user('anna');
  const dateIn = (days: number) => new Date(t.clock.now() + days * DAY).toISOString().slice(0, 10);
  const summary = async () => {
    const res = await call(t.app, anna, 'GET', '/api/inventory/summary');
    expect(res.status).toBe(200);
    return res.body;
  };

  it('an empty inventory has zero figures and default household settings', async () => {
    expect(await summary()).toEqual({
      today: dateIn(0),
      itemCount: 0,
      totalValue: 0,
      totalKcal: 0,
      itemsWithoutKcal: 0,
      householdSize: 1,
      dailyKcal: 2000,
      daysOfSupply: 0,
      expired: [],
      expiringSoon: [],
    });
  });

  it('adds value and kcal (converting g and l), days of supply and the expiry lists', async () => {
    await seedBasics(t.app, anna);
    const put = (id: string, fields: Record<string, unknown>) =>
      call(t.app, anna, 'PUT', `/api/inventory/items/${id}`, itemBody(fields));
    await put('rice', {
      quantity: 2,
      unit: 'kg',
      unitPrice: 1.5,
      kcalPerKg: 3600,
      expiryDate: dateIn(10),
    });
    await put('pasta', {
      quantity: 500,
      unit: 'g',
      unitPrice: 0.004,
      kcalPerKg: 3500,
      expiryDate: dateIn(-1),
    });
    await put('cans', {
      quantity: 3,
      unit: 'pcs',
      unitPrice: 1.2,
      kcalPerKg: 800,
      expiryDate: null,
    });
    await put('oil', {
      quantity: 1,
      unit: 'L',
      unitPrice: 4,
      kcalPerKg: 8840,
      expiryDate: dateIn(31),
    });
    await put('herbs', {
      quantity: 0.25,
      unit: 'kg',
      unitPrice: 10,
      kcalPerKg: null,
      expiryDate: dateIn(0),
    });

    const defaults = await summary();
    expect(defaults).toMatchObject({
      itemCount: 5,
      totalValue: 15.1,
      totalKcal: 17790,
      itemsWithoutKcal: 2,
      daysOfSupply: 8.9,
    });
    expect(defaults.expired.map((i: { id: string }) => i.id)).toEqual(['pasta']);
    expect(defaults.expiringSoon.map((i: { id: string }) => i.id)).toEqual(['herbs', 'rice']);

    await call(t.app, anna, 'PUT', '/api/inventory/settings', {
      householdSize: '2',
      dailyKcal: '2500',
    });
    expect(await summary()).toMatchObject({ householdSize: 2, dailyKcal: 2500, daysOfSupply: 3.6 });
  });

  it('unusable settings fall back to the defaults', async () => {
    await call(t.app, anna, 'PUT', '/api/inventory/settings', {
      householdSize: 'many',
      dailyKcal: '-5',
    });
    expect(await summary()).toMatchObject({ householdSize: 1, dailyKcal: 2000, daysOfSupply: 8.9 });
  });

  it('follows the clock: 40 days later everything with a date has expired', async () => {
    t.clock.advance(40 * DAY);
    Object.assign(anna, await login(t.app, 'anna', 'anna-password')); // the old token expired
    const later = await summary();
    expect(later.today).toBe(dateIn(0));
    expect(later.expired.map((i: { id: string }) => i.id)).toEqual([
      'pasta',
      'herbs',
      'rice',
      'oil',
    ]);
    expect(later.expiringSoon).toEqual([]);
  });
});
