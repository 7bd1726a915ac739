import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { call, itemBody } from '#test/inventory/helpers.js';
import { fixture, resourceMetadata, upload } from '#test/resources/helpers.js';
import { describeInBrowser, expectCount, screenshot } from './browser.js';
import {
  expectQuantity,
  openMember,
  signInToApp,
  type Member,
  useHouseholdApp,
} from './household-app-page.js';

const inDays = (days: number) =>
  new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

describeInBrowser('household app screens', () => {
  describe.each(DIALECTS)('%s', (dialect) => {
    const suite = useHouseholdApp(dialect, async ({ t, anna }) => {
      await call(t.app, anna, 'PUT', '/api/inventory/categories/2', { name: 'Drinks' });
      await call(t.app, anna, 'PUT', '/api/inventory/locations/2', { name: 'Cellar' });
      for (const item of [
        itemBody({ id: 'rice', name: 'Rice', quantity: 3, unit: 'kg', expiryDate: inDays(400) }),
        itemBody({ id: 'milk', name: 'Milk', quantity: 2, unit: 'l', expiryDate: inDays(5) }),
        itemBody({
          id: 'water',
          name: 'Water',
          quantity: 12,
          unit: 'l',
          categoryId: 2,
          locationId: 2,
          expiryDate: null,
        }),
      ]) {
        expect((await call(t.app, anna, 'POST', '/api/inventory/items', item)).status).toBe(201);
      }
      const pdf = fixture('candle-safety.pdf');
      const meta = resourceMetadata({ title: 'Candle safety', tags: ['Light', 'safety'] });
      expect((await upload(t.app, t.admin, 'candle-safety.pdf', meta, pdf)).statusCode).toBe(201);
      const other = resourceMetadata({ title: 'Water guide', tags: ['Water'] });
      expect((await upload(t.app, t.admin, 'emergency_radio-list.pdf', other)).statusCode).toBe(
        201,
      );
    });
    const { t, anna, ben } = suite;
    let annaApp: Member;
    let benApp: Member;
    beforeAll(async () => {
      annaApp = await openMember(suite.browser);
      benApp = await openMember(suite.browser, { width: 375 });
      await signInToApp(annaApp.page, suite.base, 'anna');
      await signInToApp(benApp.page, suite.base, 'ben');
    });

    const item = async (id: string) =>
      (await call(t.app, anna, 'GET', `/api/inventory/items/${id}`)).body;
    const rows = (member: Member) => member.page.locator('li.item .item-name');

    it('Stock: search, group by category, the expiring filter', async () => {
      const { page } = annaApp;
      await expect
        .poll(() => page.locator('section.group h2').allTextContents())
        .toEqual(['Cellar', 'Pantry']);
      await expect.poll(() => rows(annaApp).allTextContents()).toEqual(['Water', 'Milk', 'Rice']);
      await page.getByLabel('Search').fill('wat');
      await expect.poll(() => rows(annaApp).allTextContents()).toEqual(['Water']);
      await page.getByLabel('Search').fill('');
      await page.getByLabel('Group by').selectOption('category');
      await expect
        .poll(() => page.locator('section.group h2').allTextContents())
        .toEqual(['Drinks', 'Food']);
      await page.getByLabel('Expiring (30 days)').check();
      await expect.poll(() => rows(annaApp).allTextContents()).toEqual(['Milk']);
      await page.getByLabel('Expiring (30 days)').uncheck();
      // the server keeps minimum stock: rice (3 kg) below a minimum of 4
      const level = await call(t.app, anna, 'PUT', '/api/inventory/items/rice/stock-level', {
        minQuantity: 4,
      });
      expect(level.status).toBe(200);
      await page.reload();
      await page.getByLabel('Below minimum').check();
      await expect.poll(() => rows(annaApp).allTextContents()).toEqual(['Rice']);
      await page.getByLabel('Below minimum').uncheck();
      await call(t.app, anna, 'DELETE', '/api/inventory/items/rice/stock-level');
    });

    it('Stock: the edit form changes fields, a new item is added, an item is deleted', async () => {
      const { page } = annaApp;
      await page.getByRole('link', { name: 'Rice' }).click();
      await page.getByRole('heading', { name: 'Edit Rice' }).waitFor();
      await page.getByLabel('Quantity', { exact: true }).fill('5');
      await page.getByLabel('Notes').fill('<b>basmati</b>');
      await page.getByLabel('Location').selectOption({ label: 'Cellar' });
      await page.getByRole('button', { name: 'Save' }).click();
      await expectQuantity(page, 'Rice', '5 kg');
      await expect.poll(async () => (await item('rice')).notes).toBe('<b>basmati</b>');
      expect(await item('rice')).toMatchObject({ quantity: 5, locationId: 2, name: 'Rice' });

      await page.getByRole('link', { name: 'Add item' }).click();
      await page.getByLabel('Name').fill('Beans');
      await page.getByLabel('Quantity', { exact: true }).fill('');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('alert').filter({ hasText: 'quantity' }).waitFor();
      await page.getByLabel('Quantity', { exact: true }).fill('4');
      await page.getByLabel('Unit', { exact: true }).fill('cans');
      await page.getByLabel('Best before').fill(inDays(10));
      await page.getByRole('button', { name: 'Save' }).click();
      await expectQuantity(page, 'Beans', '4 cans');
      await expectQuantity(benApp.page, 'Beans', '4 cans');

      await page.getByRole('link', { name: 'Milk' }).click();
      await page.getByRole('button', { name: 'Delete item' }).click();
      await page.getByRole('button', { name: 'Yes, delete' }).click();
      await expect.poll(() => rows(annaApp).allTextContents()).toEqual(['Rice', 'Water', 'Beans']);
      await expect
        .poll(async () => (await call(t.app, anna, 'GET', '/api/inventory/items/milk')).status)
        .toBe(404);
    });

    it('Stock: a minimum set on the edit form puts the item on the shopping list, and goes again', async () => {
      const { page } = annaApp;
      const levels = async () =>
        (await call(t.app, ben, 'GET', '/api/inventory/stock-levels')).body.levels;
      await page.getByRole('link', { name: 'Rice' }).click();
      await page.getByRole('heading', { name: 'Minimum stock' }).waitFor();
      await page.getByLabel('Minimum', { exact: true }).fill('3');
      await page.getByLabel('Buy up to').fill('1');
      await page.getByRole('button', { name: 'Set minimum' }).click();
      await page.getByRole('alert').filter({ hasText: 'at least the minimum' }).waitFor();
      expect(await levels()).toEqual([]);

      await page.getByLabel('Minimum', { exact: true }).fill('8');
      await page.getByLabel('Buy up to').fill('10');
      await page.getByRole('button', { name: 'Set minimum' }).click();
      await page.getByText('Minimum saved.').waitFor();
      expect(await levels()).toEqual([{ itemId: 'rice', minQuantity: 8, targetQuantity: 10 }]);
      const list = await call(t.app, ben, 'GET', '/api/inventory/shopping-list');
      expect(list.body.entries).toMatchObject([{ id: 'item:rice', quantity: 5, unit: 'kg' }]);

      await page.getByRole('button', { name: 'Remove minimum' }).click();
      await page.getByText('Minimum removed.').waitFor();
      expect(await levels()).toEqual([]);
      await page.getByRole('link', { name: 'Cancel' }).click();
    });

    it('categories and locations: a new location shows in the edit form', async () => {
      const { page } = annaApp;
      await page.goto(`${suite.base}/app/#/stock/places`);
      await page.getByLabel('New location').fill('Garage');
      await page.getByRole('button', { name: 'Add' }).nth(1).click();
      await page.getByText('Garage').waitFor();
      await expect.poll(() => page.getByLabel('New location').inputValue()).toBe('');
      await page.getByRole('link', { name: 'Back to the stock' }).click();
      await page.getByRole('link', { name: 'Water' }).click();
      await expect
        .poll(() => page.getByLabel('Location').locator('option').allTextContents())
        .toContain('Garage');
      await page.getByRole('link', { name: 'Cancel' }).click();
    });

    it('Messages: live between members, and written offline it waits as pending', async () => {
      const annaPage = annaApp.page;
      const benPage = benApp.page;
      await annaPage.getByRole('link', { name: 'Messages' }).click();
      await annaPage.getByRole('link', { name: 'ben' }).click();
      await benPage.getByRole('link', { name: 'Messages' }).click();
      await benPage.getByRole('link', { name: 'anna' }).click();

      await benPage.getByLabel('Message').fill('Is there still rice?');
      await benPage.getByRole('button', { name: 'Send' }).click();
      await annaPage.getByText('Is there still rice?').waitFor();

      await annaApp.context.setOffline(true);
      await annaPage.getByLabel('Message').fill('Yes, <i>five</i> kilos');
      await annaPage.getByRole('button', { name: 'Send' }).click();
      const sent = annaPage.locator('li', { hasText: 'Yes, <i>five</i> kilos' });
      await expect.poll(() => sent.textContent()).toContain('pending');
      await annaApp.context.setOffline(false);
      await expect.poll(() => sent.textContent()).not.toContain('pending');
      await benPage.getByText('Yes, <i>five</i> kilos').waitFor();
      const stored = await call(t.app, ben, 'GET', `/api/messages/${anna.userId}`);
      expect(stored.body.map((m: { body: string }) => m.body)).toEqual([
        'Is there still rice?',
        'Yes, <i>five</i> kilos',
      ]);
      await screenshot(benPage, `app-messages-phone-${dialect}`);
    });

    it('Library: search, tag filter, and a download with ?token=', async () => {
      const { page } = annaApp;
      await page.getByRole('link', { name: 'Library' }).click();
      await page.getByRole('heading', { name: 'Candle safety' }).waitFor();
      await page.getByLabel('Tag').selectOption('water'); // tags are kept in lower case
      await expect
        .poll(() => page.locator('.resources h2').allTextContents())
        .toEqual(['Water guide']);
      await page.getByLabel('Tag').selectOption('');
      await page.getByLabel('Search').fill('candle');
      await expect
        .poll(() => page.locator('.resources h2').allTextContents())
        .toEqual(['Candle safety']);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download Candle safety' }).click(),
      ]);
      const file = await download.path();
      expect(fs.readFileSync(file).equals(fixture('candle-safety.pdf'))).toBe(true);
      expect(download.url()).toContain('token=');
    });

    it('Readiness shows the figures of the real route', async () => {
      const { page } = annaApp;
      await page.getByRole('link', { name: 'Readiness' }).click();
      const r = (await call(t.app, anna, 'GET', '/api/inventory/readiness')).body;
      const n = (x: number, digits = 1) =>
        new Intl.NumberFormat('en', { maximumFractionDigits: digits }).format(x);
      const people = `(household of ${r.householdSize})`;
      await page
        .getByText(
          r.goalMet
            ? `The stock lasts ${n(r.days)} days ${people}: the goal of ${r.goalDays} days is met.`
            : `The stock lasts ${n(r.days)} days ${people}: the goal is ${r.goalDays} days.`,
        )
        .waitFor();
      await page.getByText(`${n(r.food.kcal, 0)} kcal: ${n(r.food.days)} days`).waitFor();
      await page.getByText(`${n(r.water.liters, 2)} l: ${n(r.water.days)} days`).waitFor();
    });

    it('Account: a calendar link for the expiry dates, and a new one stops the old', async () => {
      const { page } = annaApp;
      await page.getByRole('link', { name: 'Account' }).click();
      await page.getByRole('button', { name: 'Make a calendar link' }).click();
      const link = page.getByLabel('Calendar link');
      await expect.poll(() => link.inputValue()).toContain('/api/inventory/calendar.ics?key=');
      const first = new URL(await link.inputValue());
      const feed = (url: URL) =>
        t.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
      const got = await feed(first);
      expect(got.statusCode).toBe(200);
      expect(got.headers['content-type']).toBe('text/calendar; charset=utf-8');
      await page.getByRole('button', { name: 'Make a new calendar link' }).click();
      await expect.poll(() => link.inputValue()).not.toBe(first.toString());
      expect((await feed(first)).statusCode).toBe(401);
      expect((await feed(new URL(await link.inputValue()))).statusCode).toBe(200);
    });

    it('Shopping list: below the minimum, by hand, bought by one member and gone for both', async () => {
      const beans = itemBody({ id: 'beans', name: 'Beans', quantity: 1, unit: 'can' });
      expect((await call(t.app, anna, 'POST', '/api/inventory/items', beans)).status).toBe(201);
      const level = await call(t.app, anna, 'PUT', '/api/inventory/items/beans/stock-level', {
        minQuantity: 4,
        targetQuantity: 6,
      });
      expect(level.status).toBe(200);
      for (const member of [annaApp, benApp]) {
        await member.page.getByRole('link', { name: 'Shopping list' }).click();
        // below its minimum of 4: what brings it to its target of 6
        await member.page.getByText('Beans · 5 can').waitFor();
      }

      await annaApp.page.getByLabel('Add to the list').fill('Matches');
      await annaApp.page.getByRole('button', { name: 'Add', exact: true }).click();
      await benApp.page.getByText('Matches', { exact: true }).waitFor();
      await expect.poll(() => annaApp.page.getByLabel('Add to the list').inputValue()).toBe('');

      await benApp.page.getByRole('button', { name: 'Bought Beans' }).click();
      await expect.poll(async () => (await item('beans')).quantity).toBe(6);
      await expectCount(annaApp.page.getByText('Beans · 5 can'), 0);
      const journal = await call(t.app, anna, 'GET', '/api/inventory/items/beans/journal');
      expect(journal.body.entries[0]).toMatchObject({
        username: 'ben',
        source: 'shopping',
        kind: 'adjust',
        delta: 5,
        quantityAfter: 6,
      });

      await annaApp.page.getByRole('button', { name: 'Delete Matches' }).click();
      await expectCount(benApp.page.getByText('Matches', { exact: true }), 0);
      const list = await call(t.app, ben, 'GET', '/api/inventory/shopping-list');
      expect(list.body.entries).toEqual([]);
    });

    it('Account: the own password changes, the other devices are signed out', async () => {
      const { page } = benApp;
      await page.getByRole('link', { name: 'Account' }).click();
      await page.getByRole('list', { name: 'Signed-in devices' }).waitFor();
      await page.getByLabel('Current password').fill('ben-password');
      await page.getByLabel('New password').fill('ben-new-password');
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByText('Password changed.').waitFor();
      expect((await call(t.app, ben, 'GET', '/api/auth/me')).status).toBe(401);
      // this device goes on with its new tokens
      await page.getByRole('link', { name: 'Stock' }).click();
      await page.getByRole('button', { name: 'Add one Water' }).click();
      await expect.poll(async () => (await item('water')).quantity).toBe(13);
    });

    it('no console errors', () => {
      expect(annaApp.problems).toEqual([]);
      expect(benApp.problems).toEqual([]);
    });
  });
});
