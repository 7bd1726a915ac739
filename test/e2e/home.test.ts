import fs from 'node:fs';
import path from 'node:path';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { beforeAll, expect, it } from 'vitest';
import { describeInBrowser, onPhoneIn, screenshot, useBrowserTest } from './browser.js';
import { publishVersion } from '#test/releases/helpers.js';

// jsqr is CommonJS whose typings declare an ES default export: take whichever is the function
const jsQR = ((jsQRModule as unknown as { default?: unknown }).default ??
  jsQRModule) as unknown as typeof jsQRModule.default;

/** Decodes the QR code a user would scan: a screenshot of the canvas as drawn on screen. */
function decodeQr(png: Buffer): string | null {
  const image = PNG.sync.read(png);
  const code = jsQR(new Uint8ClampedArray(image.data), image.width, image.height);
  return code?.data ?? null;
}

describeInBrowser('home page in a browser', () => {
  const ctx = useBrowserTest();

  beforeAll(async () => {
    fs.mkdirSync(path.join(ctx.t.config.dataDir, 'static'), { recursive: true });
    fs.writeFileSync(path.join(ctx.t.config.dataDir, 'static', 'larder.apk'), 'PK fake apk');
  });

  it('desktop: draws a QR code of the apkUrl and links to it, with size, date and the install hint', async () => {
    await publishVersion(ctx.t.app, { versionCode: 31, versionName: '3.1.0' });
    const { apkUrl } = (await (await fetch(`${ctx.base}/api/version`)).json()) as {
      apkUrl: string;
    };
    expect(apkUrl).toBe(`${ctx.base}/static/larder.apk`);

    const page = await ctx.browser.newPage(1280);
    await page.goto(`${ctx.base}/`);
    await page.locator('canvas#qr[data-drawn="true"]').waitFor();
    expect(await page.locator('#app-name').textContent()).toBe('Larder');
    expect(await page.locator('#version-name').textContent()).toBe('3.1.0');
    expect(await page.locator('#version-code').textContent()).toBe('31');
    expect(await page.locator('#apk-link').getAttribute('href')).toBe(apkUrl);
    await page.getByText('Scan this code with your phone’s camera').waitFor();
    expect(await page.getByText('Tap the button to download').isVisible()).toBe(false);
    await expect(page.locator('#apk-facts').textContent()).resolves.toMatch(/^1 KB · published /);
    await page.getByText('Install unknown apps').waitFor();
    expect(await page.evaluate<string>('document.documentElement.lang')).toBe('en');

    const qr = decodeQr(await page.locator('canvas#qr').screenshot());
    expect(qr).toBe(apkUrl);
    await screenshot(page, 'home-desktop');

    const download = await fetch(apkUrl);
    expect(download.headers.get('content-type')).toBe('application/vnd.android.package-archive');
    expect(await download.text()).toBe('PK fake apk');
    const icon = await fetch(`${ctx.base}/favicon.ico`);
    expect(icon.headers.get('content-type')).toBe('image/x-icon');
    await page.close();
    expect(ctx.browser.problems).toEqual([]);
  });

  it('phone: no QR code to scan on its own screen, a download button and a tap hint', async () => {
    const page = await ctx.browser.newPage(375);
    await page.goto(`${ctx.base}/`);
    await page.getByText('Tap the button to download').waitFor();
    expect(await page.locator('canvas#qr').isVisible()).toBe(false);
    expect(await page.getByText('Scan this code').isVisible()).toBe(false);
    const link = page.getByRole('link', { name: 'Download for Android (APK)' });
    const box = await link.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(375);
    expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= innerWidth')).toBe(
      true,
    );
    await screenshot(page, 'home-phone');
    await page.close();
  });

  it('a German browser gets the page in German; an unknown page is a page, not JSON', async () => {
    await onPhoneIn('de-DE', `${ctx.base}/`, async (page) => {
      expect(await page.evaluate<string>('document.documentElement.lang')).toBe('de');
      await page.getByRole('link', { name: 'Für Android herunterladen (APK)' }).waitFor();
      await page.getByText('Unbekannte Apps installieren', { exact: false }).waitFor();
      await screenshot(page, 'home-de-phone');
      const res = await page.goto(`${ctx.base}/gibt/es/nicht`);
      expect(res!.status()).toBe(404);
      await page.getByRole('heading', { name: 'Seite nicht gefunden' }).waitFor();
      await page.getByRole('link', { name: 'Zur Startseite' }).click();
      await page.locator('#app-name').waitFor();
    });
  });

  it('the page still shows name, version and link when its script does not run', async () => {
    const page = await ctx.browser.newPage();
    await page.route('**/assets/*.js', (route) => route.abort());
    await page.goto(`${ctx.base}/`);
    expect(await page.locator('#version-name').textContent()).toBe('3.1.0');
    expect(await page.locator('#apk-link').getAttribute('href')).toBe(
      `${ctx.base}/static/larder.apk`,
    );
    expect(await page.locator('canvas#qr').getAttribute('data-drawn')).toBeNull();
    await page.close();
  });
});
