import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { call, itemBody } from '#test/inventory/helpers.js';
import { describeInBrowser, screenshot, useBrowserTest } from './browser.js';
import {
  expectQuantity,
  openMember,
  signInToApp,
  untilServiceWorkerControls,
  type Member,
  useHouseholdApp,
} from './household-app-page.js';

describeInBrowser('household app at /app/', () => {
  describe.each(DIALECTS)('%s', (dialect) => {
    const suite = useHouseholdApp(dialect, async ({ t, anna }) => {
      const created = await call(t.app, anna, 'POST', '/api/inventory/items', {
        ...itemBody({ id: 'beans', name: 'Beans', quantity: 10, unit: 'cans', lastUpdated: 1 }),
      });
      expect(created.status).toBe(201);
    });
    const { t, anna } = suite;
    let annaApp: Member;
    let benApp: Member;
    beforeAll(async () => {
      annaApp = await openMember(suite.browser);
      benApp = await openMember(suite.browser);
    });

    const serverQuantity = async () =>
      (await call(t.app, anna, 'GET', '/api/inventory/items/beans')).body.quantity as number;

    it('serves the shell with a strict CSP and a manifest named after the server', async () => {
      const page = await fetch(`${suite.base}/app/`);
      expect(page.status).toBe(200);
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      const manifest = (await (
        await fetch(`${suite.base}/app/manifest.webmanifest`)
      ).json()) as any;
      expect(manifest).toMatchObject({
        name: 'Larder',
        start_url: '/app/',
        scope: '/app/',
        display: 'standalone',
      });
      const sizes = manifest.icons.map((icon: { sizes: string }) => icon.sizes);
      expect(sizes).toEqual(expect.arrayContaining(['192x192', '512x512']));
      for (const icon of manifest.icons) {
        const res = await fetch(`${suite.base}${icon.src}`);
        expect(res.headers.get('content-type')).toBe('image/png');
      }
      const sw = await fetch(`${suite.base}/app/sw.js`);
      expect(sw.status).toBe(200);
      expect(sw.headers.get('content-type')).toMatch(/javascript/);
      expect((await fetch(`${suite.base}/app/nope.js`)).status).toBe(404);
      expect((await fetch(`${suite.base}/app/..%2f..%2fpackage.json`)).status).toBe(404);
    });

    it('a wrong password is refused on the sign-in page', async () => {
      // a browser of its own: the refused login is a 401 in its console
      const { page, context } = await openMember(suite.browser);
      await page.goto(`${suite.base}/app/`);
      await page.getByLabel('Username').fill('anna');
      await page.getByLabel('Password').fill('not-her-password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').waitFor();
      await context.close();
    });

    it('two members: one offline uses 2 of 10 cans, the other 1 online; after reconnect everyone sees 7', async () => {
      await signInToApp(annaApp.page, suite.base, 'anna');
      await signInToApp(benApp.page, suite.base, 'ben');
      await expectQuantity(annaApp.page, 'Beans', '10 cans');
      await expectQuantity(benApp.page, 'Beans', '10 cans');
      await untilServiceWorkerControls(annaApp.page);

      await annaApp.context.setOffline(true);
      const useOne = annaApp.page.getByRole('button', { name: 'Use one Beans' });
      await useOne.click();
      await useOne.click();
      await expectQuantity(annaApp.page, 'Beans', '8 cans');
      const status = annaApp.page.getByRole('status').filter({ hasText: 'waiting' });
      await expect.poll(() => status.textContent()).toContain('2 changes waiting');

      await benApp.page.getByRole('button', { name: 'Use one Beans' }).click();
      await expectQuantity(benApp.page, 'Beans', '9 cans');
      await expect.poll(serverQuantity).toBe(9);
      await expectQuantity(annaApp.page, 'Beans', '8 cans');
      await screenshot(annaApp.page, `app-stock-offline-${dialect}`);

      await annaApp.context.setOffline(false);
      await expect.poll(serverQuantity).toBe(7);
      await expectQuantity(annaApp.page, 'Beans', '7 cans');
      await expectQuantity(benApp.page, 'Beans', '7 cans');
      await expect.poll(() => annaApp.page.getByText('waiting').count()).toBe(0);
    });

    it('a reload without network opens the app with the last synced stock', async () => {
      const { page, context } = annaApp;
      await context.setOffline(true);
      await page.reload();
      await expectQuantity(page, 'Beans', '7 cans');
      await context.setOffline(false);
      await expectQuantity(page, 'Beans', '7 cans');
    });

    it('sign-out revokes the session and leaves nothing on the device', async () => {
      const { page } = benApp;
      const refreshToken = await page.evaluate<string>(`new Promise((resolve, reject) => {
        const open = indexedDB.open('larder-app');
        open.onerror = reject;
        open.onsuccess = () => {
          const get = open.result.transaction('session').objectStore('session').get('current');
          get.onsuccess = () => { resolve(get.result.refreshToken); open.result.close(); };
        };
      })`);
      await page.getByRole('link', { name: 'Account' }).click();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('Username').waitFor();
      const databases = await page.evaluate<string[]>(
        'indexedDB.databases().then((list) => list.map((d) => d.name))',
      );
      expect(databases).toEqual([]);
      expect(await page.evaluate<number>('localStorage.length')).toBe(0);
      const refresh = await call(t.app, null, 'POST', '/api/auth/refresh', { refreshToken });
      expect(refresh.status).toBe(401);
    });

    it('no console errors in either browser', () => {
      expect(annaApp.problems).toEqual([]);
      expect(benApp.problems).toEqual([]);
    });
  });
});

describeInBrowser('household app: installable, and linked from the home page', () => {
  const ctx = useBrowserTest();

  it('the home page opens it; Chromium finds its manifest and service worker installable', async () => {
    const page = await ctx.browser.newPage();
    await page.goto(`${ctx.base}/`);
    await page.getByRole('link', { name: 'Open in the browser' }).click();
    await page.waitForURL(`${ctx.base}/app/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await untilServiceWorkerControls(page);
    // a persistent profile (an ordinary context reports in-incognito); detached at once, since an
    // attached CDP session breaks setOffline
    const cdp = await ctx.browser.context.newCDPSession(page);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    await cdp.detach();
    expect(installabilityErrors).toEqual([]);
    expect(ctx.browser.problems).toEqual([]);
  });
});
