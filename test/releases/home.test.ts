import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { createReleasesService } from '#src/releases/releases.service.js';
import { createWebAssets } from '#src/releases/web-assets.js';
import { createFolderStorage } from '#src/storage/folder.storage.js';

// The pages as served with a web build are in home.slow.test.ts: it builds web/dist when needed.
describe('without a web build', () => {
  it('the home page still has name, version and link, and no script; /admin/ is unavailable', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-noweb-'));
    const version = { versionCode: 3, versionName: '0.3' };
    try {
      const releases = createReleasesService({
        store: { read: async () => version, write: async () => version },
        web: createWebAssets(path.join(dataDir, 'no-dist')),
        storage: createFolderStorage({ static: path.join(dataDir, 'static') }),
        dataDir,
        appName: 'Larder',
        apkFile: 'larder.apk',
      });
      fs.mkdirSync(path.join(dataDir, 'static'));
      fs.writeFileSync(path.join(dataDir, 'static', 'larder.apk'), 'x');
      const html = await releases.homePage('https://larder.example');
      expect(html).toContain('<strong id="version-name">0.3</strong>');
      expect(html).toContain('href="https://larder.example/static/larder.apk"');
      expect(html).not.toContain('<script');
      expect(releases.adminIndex()).toBeNull();
      expect(releases.appIndex()).toBeNull();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe.each(DIALECTS)('home page language, APK facts, favicon and 404 pages (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers });

  it('without a published APK: no QR code, no download button, a notice saying what to do', async () => {
    const html = (await get('/')).body;
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('has not been published on this server yet');
    expect(html).toContain('static/larder.apk');
    expect(html).not.toContain('<canvas');
    // members without an Android phone use the app in the browser, published APK or not
    expect(html).toContain('href="/app/">Open in the browser</a>');
    expect(html).not.toContain('id="apk-link"');
  });

  it('with the APK: size, date, the unknown-sources hint; in German for a German browser', async () => {
    fs.mkdirSync(path.join(t.config.dataDir, 'static'), { recursive: true });
    const file = path.join(t.config.dataDir, 'static', 'larder.apk');
    fs.writeFileSync(file, Buffer.alloc(3 * 1024 * 1024 + 300 * 1024));
    const when = new Date('2026-03-14T12:00:00Z');
    fs.utimesSync(file, when, when);

    const en = (await get('/', { 'accept-language': 'en-GB,en;q=0.8' })).body;
    expect(en).toContain('<html lang="en">');
    expect(en).toContain('Download for Android (APK)');
    expect(en).toContain(
      '<a id="open-app" class="download secondary" href="/app/">Open in the browser</a>',
    );
    expect(en).toMatch(/id="apk-facts">3\.3 MB · published 14 March 2026</);
    expect(en).toContain('Install unknown apps');
    expect(en).toContain('Tap the button to download');
    expect(en).not.toContain('has not been published');

    const de = (await get('/', { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' })).body;
    expect(de).toContain('<html lang="de">');
    expect(de).toContain('Für Android herunterladen (APK)');
    expect(de).toContain('href="/app/">Im Browser öffnen</a>');
    expect(de).toMatch(/id="apk-facts">3,3 MB · veröffentlicht am 14\. März 2026</);
    expect(de).toContain('Unbekannte Apps installieren');
    expect(de).toContain('<a href="/admin/">Verwaltung</a>');

    // a language without a catalogue falls back to English; q=0 means "not this one"
    expect((await get('/', { 'accept-language': 'fr-FR, fr;q=0.9' })).body).toContain(
      '<html lang="en">',
    );
    expect((await get('/', { 'accept-language': 'de;q=0, en' })).body).toContain(
      '<html lang="en">',
    );
  });

  it('serves /favicon.ico, and every page links it', async () => {
    const res = await get('/favicon.ico');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/x-icon');
    expect(res.rawPayload.subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));
    expect((await get('/')).body).toContain('<link rel="icon" href="/favicon.ico"');
  });

  it('an unknown page is an HTML 404 for a browser, in its language', async () => {
    const accept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const res = await get('/no/such/page?x=1', { accept, 'accept-language': 'de' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('<html lang="de">');
    expect(res.body).toContain('Seite nicht gefunden');
    expect(res.body).toContain('Unter /no/such/page gibt es nichts.');
    expect(res.body).toContain('href="/"');
    const en = await get('/%3Cscript%3E', { accept, 'accept-language': 'xx-!!, en' });
    expect(en.body).toContain('There is nothing at /&lt;script&gt;.');
  });

  it('API clients keep the JSON 404, also under /api with a browser’s Accept', async () => {
    for (const [url, accept] of [
      ['/no/such/page', 'application/json'],
      ['/no/such/page', '*/*'],
      ['/no/such/page', ''],
      ['/api/nothing', 'text/html'],
    ]) {
      const res = await get(url!, accept ? { accept } : {});
      expect(res.statusCode, `${url} ${accept}`).toBe(404);
      expect(res.headers['content-type']).toContain('application/json');
      expect(res.json()).toEqual({ message: expect.any(String), code: 'not_found' });
    }
    const post = await t.app.inject({
      method: 'POST',
      url: '/no/such/page',
      headers: { accept: 'text/html' },
    });
    expect(post.json().code).toBe('not_found');
  });
});
