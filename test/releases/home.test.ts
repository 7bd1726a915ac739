import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createReleasesService } from '../../src/releases/releases.service.js';
import { createVersionStore } from '../../src/releases/version.store.js';
import { createWebAssets } from '../../src/releases/web-assets.js';

// The pages as served with a web build are in home.slow.test.ts: it builds web/dist when needed.
describe('without a web build', () => {
  it('the home page still has name, version and link, and no script; /admin/ is unavailable', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-noweb-'));
    try {
      const releases = createReleasesService({
        store: createVersionStore({ dataDir, fallback: { versionCode: 3, versionName: '0.3' } }),
        web: createWebAssets(path.join(dataDir, 'no-dist')),
        dataDir,
        appName: 'Larder',
        apkFile: 'larder.apk',
      });
      const html = await releases.homePage('https://larder.example');
      expect(html).toContain('<strong id="version-name">0.3</strong>');
      expect(html).toContain('href="https://larder.example/static/larder.apk"');
      expect(html).not.toContain('<script');
      expect(releases.adminIndex()).toBeNull();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
