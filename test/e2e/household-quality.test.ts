import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { call, itemBody } from '#test/inventory/helpers.js';
import { fixture, resourceMetadata, upload } from '#test/resources/helpers.js';
import { describeInBrowser, screenshot } from './browser.js';
import { openMember, signInToApp, useHouseholdApp } from './household-app-page.js';

/** The first load's budget of compressed JavaScript (DESIGN, "The household app"). */
const SCRIPT_BUDGET_BYTES = 150 * 1024;

const SCREENS = [
  ['stock', 'Stock'],
  ['shopping', 'Shopping list'],
  ['readiness', 'Readiness'],
  ['messages', 'Messages'],
  ['library', 'Library'],
  ['account', 'Account'],
] as const;

/** Serious and critical findings of axe-core on what the page shows now. */
async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

const fitsWidth = (page: Page) =>
  page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth');

describeInBrowser('household app: accessible, German, phone width, within its budget', () => {
  describe.each(DIALECTS)('%s', (dialect) => {
    const suite = useHouseholdApp(dialect, async ({ t, anna, ben }) => {
      const long = 'Sehr lange Bezeichnung ohne Leerzeichen'.repeat(3).replaceAll(' ', '');
      for (const [id, name] of [
        ['beans', 'Beans'],
        ['long', long],
      ]) {
        const body = itemBody({ id, name, quantity: 10, unit: 'cans', expiryDate: '2020-01-01' });
        expect((await call(t.app, anna, 'POST', '/api/inventory/items', body)).status).toBe(201);
      }
      await call(t.app, ben, 'POST', '/api/messages', { receiverId: anna.userId, body: 'Hello' });
      const meta = resourceMetadata({ title: 'Candle safety' });
      await upload(t.app, t.admin, 'candle-safety.pdf', meta, fixture('candle-safety.pdf'));
    });

    it('the first load, up to the Stock screen, fetches at most 150 KB of compressed JavaScript', async () => {
      const member = await openMember(suite.browser);
      const scripts: Promise<number>[] = [];
      member.page.on('requestfinished', (request) => {
        if (request.resourceType() !== 'script') return;
        scripts.push(
          request.sizes().then((sizes) => {
            expect(sizes.responseBodySize).toBeGreaterThan(0);
            return sizes.responseBodySize;
          }),
        );
      });
      await signInToApp(member.page, suite.base, 'anna');
      await member.page.getByRole('button', { name: 'Use one Beans' }).waitFor();
      const bytes = (await Promise.all(scripts)).reduce((a, b) => a + b, 0);
      expect(scripts.length).toBeGreaterThan(0);
      expect(bytes).toBeLessThanOrEqual(SCRIPT_BUDGET_BYTES);
      await member.context.close();
    });

    // what axe and the layout check see does not depend on the database: one dialect is enough
    for (const width of dialect === DIALECTS[0] ? [375, 1280] : []) {
      it(`every screen at ${width} px: no serious or critical axe finding, no sideways scrolling`, async () => {
        const member = await openMember(suite.browser, { width });
        const { page } = member;
        await page.goto(`${suite.base}/app/`);
        await page.getByRole('button', { name: 'Sign in' }).waitFor();
        expect(await seriousViolations(page)).toEqual([]);
        await signInToApp(page, suite.base, 'anna');
        for (const [route, name] of SCREENS) {
          await page.getByRole('link', { name, exact: true }).click();
          await page.getByRole('heading', { level: 1, name }).waitFor();
          if (route === 'messages') {
            await page.getByRole('link', { name: 'ben' }).click();
            await page.getByText('Hello').waitFor();
          }
          if (route === 'library')
            await page.getByRole('heading', { name: 'Candle safety' }).waitFor();
          if (route === 'account')
            await page.getByRole('list', { name: 'Signed-in devices' }).waitFor();
          expect(await seriousViolations(page), `${route} at ${width} px`).toEqual([]);
          expect(await fitsWidth(page), `${route} at ${width} px`).toBe(true);
          await screenshot(page, `app-${route}-${width}-${dialect}`);
        }
        for (const route of ['stock/item/beans', 'stock/new', 'stock/places']) {
          await page.goto(`${suite.base}/app/#/${route}`);
          await page.getByRole('heading', { level: 1 }).waitFor();
          expect(await seriousViolations(page), `${route} at ${width} px`).toEqual([]);
          expect(await fitsWidth(page), `${route} at ${width} px`).toBe(true);
        }
        expect(member.problems).toEqual([]);
        await member.context.close();
      }, 180_000);
    }

    it('speaks German in a German browser, and the Account choice overrides the browser', async () => {
      const member = await openMember(suite.browser, { locale: 'de-DE', width: 375 });
      const { page } = member;
      await page.goto(`${suite.base}/app/`);
      await page.getByLabel('Benutzername').fill('anna');
      await page.getByLabel('Passwort').fill('anna-password');
      await page.getByRole('button', { name: 'Anmelden' }).click();
      const nav = page.getByRole('navigation', { name: 'Bereiche' });
      await expect
        .poll(() => nav.getByRole('link').allTextContents())
        .toEqual(['Vorrat', 'Einkaufsliste', 'Bereitschaft', 'Nachrichten', 'Bibliothek', 'Konto']);
      expect(await page.evaluate<string>('document.documentElement.lang')).toBe('de');
      await page.getByRole('link', { name: 'Konto' }).click();
      await page.getByLabel('Sprache').selectOption('en');
      await page.getByRole('link', { name: 'Stock', exact: true }).waitFor();
      expect(await page.evaluate<string>('document.documentElement.lang')).toBe('en');
      expect(member.problems).toEqual([]);
      await member.context.close();
    });
  });
});
