import fs from 'node:fs';
import path from 'node:path';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { beforeAll, expect, it } from 'vitest';
import { describeInBrowser, screenshot, useBrowserTest } from './browser.js';
import { publishVersion } from '../releases/helpers.js';

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

  it.each([
    ['desktop', 1280],
    ['phone', 375],
  ])('draws a QR code of the apkUrl and links to it (%s)', async (name, width) => {
    await publishVersion(ctx.t.app, { versionCode: 31, versionName: '3.1.0' });
    const { apkUrl } = (await (await fetch(`${ctx.base}/api/version`)).json()) as {
      apkUrl: string;
    };
    expect(apkUrl).toBe(`${ctx.base}/static/larder.apk`);

    const page = await ctx.browser.newPage(width);
    await page.goto(`${ctx.base}/`);
    await page.locator('canvas#qr[data-drawn="true"]').waitFor();
    expect(await page.locator('#app-name').textContent()).toBe('Larder');
    expect(await page.locator('#version-name').textContent()).toBe('3.1.0');
    expect(await page.locator('#version-code').textContent()).toBe('31');
    expect(await page.locator('#apk-link').getAttribute('href')).toBe(apkUrl);

    const qr = decodeQr(await page.locator('canvas#qr').screenshot());
    expect(qr).toBe(apkUrl);
    const box = await page.locator('canvas#qr').boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(width);
    await screenshot(page, `home-${name}`);

    const download = await fetch(apkUrl);
    expect(download.headers.get('content-type')).toBe('application/vnd.android.package-archive');
    expect(await download.text()).toBe('PK fake apk');
    await page.close();
    expect(ctx.browser.problems).toEqual([]);
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
