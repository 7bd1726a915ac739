import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN_PASSWORD, createUser, loginAsAdmin } from '#test/helpers/app.js';
import { call, itemBody, seedBasics } from '#test/inventory/helpers.js';
import { fitsWidth } from './admin-page.js';
import {
  describeInBrowser,
  expectCount,
  launchBrowser,
  screenshot,
  useBrowserTest,
  type Browser,
} from './browser.js';

const isoDay = (offsetDays: number) => {
  const d = new Date();
  d.setDate(d.getDate() + offsetDays);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

describeInBrowser('admin interface in German, and the items view', () => {
  const ctx = useBrowserTest();
  let german: Browser;
  let page: Page;

  beforeAll(async () => {
    const admin = await loginAsAdmin(ctx.t.app);
    const anna = await createUser(ctx.t.app, admin, 'anna');
    await seedBasics(ctx.t.app, anna);
    for (const [name, expiryDate] of [
      ['Milch', isoDay(-2)],
      ['Reis', isoDay(5)],
      ['Wasser', isoDay(400)],
      ['Salz', null],
    ] as const) {
      const res = await call(
        ctx.t.app,
        anna,
        'POST',
        '/api/inventory/items',
        itemBody({ name, expiryDate }),
      );
      expect(res.status).toBe(201);
    }
    german = await launchBrowser({ locale: 'de-DE' });
    page = await german.newPage();
  });
  afterAll(async () => {
    await german?.close();
  });

  it('follows the browser language: German sign-in, tabs and messages', async () => {
    await page.goto(`${ctx.base}/admin/`);
    expect(await page.evaluate<string>('document.documentElement.lang')).toBe('de');
    await page.getByLabel('Benutzername').fill('admin');
    await page.getByLabel('Passwort').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await page.getByText('Angemeldet als admin').waitFor();
    for (const tab of ['Benutzer', 'Bestände', 'Ressourcen', 'Sicherungen', 'Mein Konto']) {
      await page.getByRole('tab', { name: tab }).waitFor();
    }
    const row = page.locator('li.user[data-username="anna"]');
    await row.getByRole('button', { name: 'anna verwalten' }).click();
    await row.getByRole('button', { name: 'Löschen' }).click();
    await expect(row.getByRole('group').textContent()).resolves.toContain(
      '„Bestand von anna“ wird mit seinen 4 Artikeln gelöscht.',
    );
    await row.getByRole('button', { name: 'Abbrechen' }).click();
    await row.getByRole('button', { name: 'Zum Admin machen' }).click();
    await page.getByText('anna ist jetzt Admin.').waitFor();
    await row.getByRole('button', { name: 'Admin-Rechte entziehen' }).click();
    await row.getByRole('button', { name: 'Ja, entziehen' }).click();
    await page.getByText('anna ist kein Admin mehr.').waitFor();
    await screenshot(page, 'admin-users-de-desktop');
  });

  it('the items view searches, and marks expired and soon-expiring items', async () => {
    await page.getByRole('tab', { name: 'Bestände' }).click();
    const card = page.locator('li.inventory', {
      has: page.locator('h3', { hasText: 'Bestand von anna' }),
    });
    await card.getByRole('button', { name: 'Artikel zeigen (4)' }).click();
    const items = card.locator('.items li');
    await expectCount(items, 4);
    await expect(card.locator('.item.expiry-expired .item-name').textContent()).resolves.toBe(
      'Milch',
    );
    await expect(card.locator('.item.expiry-expired .expiry').textContent()).resolves.toMatch(
      /^abgelaufen am /,
    );
    await expect(card.locator('.item.expiry-soon .item-name').textContent()).resolves.toBe('Reis');
    await card.getByLabel('Artikel suchen').fill('wass');
    await card.getByText('(1 von 4)').waitFor();
    await expect(items.allTextContents()).resolves.toEqual([expect.stringContaining('Wasser')]);
    await card.getByLabel('Artikel suchen').fill('pantry');
    await expectCount(items, 4); // the location matches too
    await card.getByLabel('Artikel suchen').fill('');
    await screenshot(page, 'admin-items-de-desktop');
  });

  it('the Backups tab says in German whether a backup restores', async () => {
    await page.getByRole('tab', { name: 'Sicherungen' }).click();
    await page.getByRole('button', { name: 'Jetzt sichern' }).click();
    const row = page.locator('li.backup').first();
    await row.getByText(/^Geprüft \d{1,2}\. \S+ \d{4}/).waitFor();
    fs.copyFileSync(
      path.join(ctx.t.config.backupDir, (await row.getAttribute('data-name'))!),
      path.join(ctx.t.config.backupDir, 'von-hand.sql.gz'),
    );
    await page.reload();
    const copy = page.locator('li.backup[data-name="von-hand.sql.gz"]');
    await copy.getByText('nicht geprüft', { exact: true }).waitFor();
    fs.writeFileSync(path.join(ctx.t.config.backupDir, 'von-hand.sql.gz'), 'kein gzip');
    await copy.getByRole('button', { name: 'von-hand.sql.gz prüfen' }).click();
    await page.getByText('Sicherung von-hand.sql.gz hat die Prüfung nicht bestanden.').waitFor();
    await copy.getByText('Prüfung fehlgeschlagen:').waitFor();
  });

  it('a phone viewport has no sideways scroll on any tab', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    for (const tab of ['Benutzer', 'Bestände', 'Ressourcen', 'Sicherungen', 'Mein Konto']) {
      await page.getByRole('tab', { name: tab }).click();
      await page.locator('[role="tabpanel"]').waitFor();
      expect(await fitsWidth(page), tab).toBe(true);
    }
    await page.getByRole('tab', { name: 'Bestände' }).click();
    await page.locator('li.inventory').first().waitFor();
    await page.getByRole('button', { name: 'Artikel zeigen (4)' }).click();
    await page.locator('.items li').first().waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'admin-inventories-de-phone');
    expect(german.problems).toEqual([]);
  });
});
