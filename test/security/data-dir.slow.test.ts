import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIALECTS, loginAsAdmin } from '#test/helpers/app.js';
import { inTestApp } from '#test/helpers/fixtures.js';
import { resourceMetadata, upload } from '#test/resources/helpers.js';

/** The data folder (docs/security.md): several apps per dialect, so in the slow tier. */
describe.each(DIALECTS)('data dir and public URL (%s)', (dialect) => {
  it('keeps everything under the data dir private (0700 folders, 0600 files)', async () => {
    await inTestApp(dialect, {}, async (t) => {
      const admin = await loginAsAdmin(t.app);
      const res = await upload(t.app, admin, 'water-guide.pdf', resourceMetadata());
      expect(res.statusCode, res.body).toBe(201);
      const wide: string[] = [];
      const walk = (p: string) => {
        const st = fs.statSync(p);
        if ((st.mode & 0o077) !== 0) wide.push(`${p} ${(st.mode & 0o777).toString(8)}`);
        if (st.isDirectory()) for (const name of fs.readdirSync(p)) walk(path.join(p, name));
      };
      walk(t.config.dataDir);
      expect(wide).toEqual([]);
      const names = fs.readdirSync(t.config.dataDir);
      expect(names).not.toContain('jwt-secret'); // the signing keys are in the database
      expect(names).toContain('resources');
      if (dialect === 'sqlite')
        expect(names).toEqual(expect.arrayContaining(['larder.db', 'larder.db-wal']));
    });
  }, 120_000);

  it('tightens a data dir an older version left world-readable', async () => {
    await inTestApp(dialect, {}, async (first) => {
      await first.close();
      fs.chmodSync(first.config.dataDir, 0o755);
      fs.chmodSync(path.join(first.config.dataDir, 'resources'), 0o755);
      fs.writeFileSync(
        path.join(first.config.dataDir, 'version.json'),
        '{"versionCode":1,"versionName":"1"}',
        { mode: 0o644 },
      );
      fs.chmodSync(path.join(first.config.dataDir, 'version.json'), 0o644);
      await inTestApp(dialect, { env: first.env }, async (second) => {
        for (const p of ['', 'resources', 'version.json']) {
          const mode = fs.statSync(path.join(second.config.dataDir, p)).mode & 0o777;
          expect(mode.toString(8), p).toBe(p === 'version.json' ? '600' : '700');
        }
      });
    });
  }, 120_000);

  it('builds apkUrl and downloadUrl from LARDER_PUBLIC_URL, whatever the Host header says', async () => {
    await inTestApp(
      dialect,
      { extraEnv: { LARDER_PUBLIC_URL: 'https://larder.example.org/app/' } },
      async (t) => {
        const version = await t.app.inject({
          url: '/api/version',
          headers: { host: 'evil.example.com' },
        });
        expect(version.json().apkUrl).toBe('https://larder.example.org/app/static/larder.apk');
        const admin = await loginAsAdmin(t.app);
        const fromElsewhere = { ...admin, headers: { ...admin.headers, host: 'evil.example.com' } };
        const res = await upload(t.app, fromElsewhere, 'water-guide.pdf', resourceMetadata());
        expect(res.json().downloadUrl).toMatch(
          /^https:\/\/larder\.example\.org\/app\/api\/resources\/[0-9a-f-]+\/download$/,
        );
      },
    );
  }, 120_000);
});
