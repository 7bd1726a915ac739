import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIALECTS, bearer } from '#test/helpers/app.js';
import { inTestApp, useTestApp } from '#test/helpers/fixtures.js';
import { publishVersion } from './helpers.js';

const HOST = { host: 'larder.example:8080' };

describe.each(DIALECTS)('version endpoints (%s)', (dialect) => {
  const t = useTestApp(dialect);

  const publish = (payload: unknown) => publishVersion(t.app, payload, HOST);
  const current = async () =>
    (await t.app.inject({ method: 'GET', url: '/api/version', headers: HOST })).json();

  it('GET /api/version falls back to the configured version with an absolute apkUrl', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/version', headers: HOST });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      versionCode: 1,
      versionName: '1.0.0',
      apkUrl: 'http://larder.example:8080/static/larder.apk',
    });
  });

  it('POST with the admin token publishes a version, effective at once and written to version.json', async () => {
    const res = await publish({ versionCode: 42, versionName: '2.3.0 beta' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      versionCode: 42,
      versionName: '2.3.0 beta',
      apkUrl: 'http://larder.example:8080/static/larder.apk',
    });
    expect(await current()).toMatchObject({ versionCode: 42, versionName: '2.3.0 beta' });
    const file = path.join(t.config.dataDir, 'version.json');
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
      versionCode: 42,
      versionName: '2.3.0 beta',
    });
    expect(fs.readdirSync(t.config.dataDir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a wrong, missing or user token is 401 and changes nothing', async () => {
    for (const headers of [bearer('not-the-token'), {}, t.admin.headers]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/admin/version',
        headers,
        payload: { versionCode: 99, versionName: 'evil' },
      });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('unauthorized');
    }
    expect(await current()).toMatchObject({ versionCode: 42, versionName: '2.3.0 beta' });
  });

  it.each([
    ['a negative code', { versionCode: -1, versionName: 'x' }],
    ['a fractional code', { versionCode: 1.5, versionName: 'x' }],
    ['an empty name', { versionCode: 1, versionName: '' }],
    ['a blank name', { versionCode: 1, versionName: '   ' }],
    ['a name over 50 characters', { versionCode: 1, versionName: 'x'.repeat(51) }],
    ['a missing name', { versionCode: 1 }],
    ['an unknown field', { versionCode: 1, versionName: 'x', apkUrl: 'http://evil' }],
  ])('%s is 400 validation_failed and changes nothing', async (_name, payload) => {
    const res = await publish(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('validation_failed');
    expect(await current()).toMatchObject({ versionCode: 42, versionName: '2.3.0 beta' });
  });

  it('the published version survives a restart', async () => {
    await inTestApp(dialect, { env: t.env }, async (second) => {
      const res = await second.app.inject({ method: 'GET', url: '/api/version', headers: HOST });
      expect(res.json()).toMatchObject({ versionCode: 42, versionName: '2.3.0 beta' });
    });
  });

  it('X-Forwarded-Proto/Host are ignored without LARDER_TRUST_PROXY', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/version',
      headers: { ...HOST, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' },
    });
    expect(res.json().apkUrl).toBe('http://larder.example:8080/static/larder.apk');
  });

  it('a malformed Host header never reaches the URL', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/version',
      headers: { host: 'x"><script>' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().apkUrl).toBe('http://localhost/static/larder.apk');
  });
});

describe.each(DIALECTS)('version configuration (%s)', (dialect) => {
  it('POST /api/admin/version is 503 when LARDER_ADMIN_TOKEN is not set', async () => {
    await inTestApp(dialect, { extraEnv: { LARDER_ADMIN_TOKEN: undefined } }, async (t) => {
      const res = await publishVersion(t.app, { versionCode: 2, versionName: '2.0' });
      expect(res.statusCode).toBe(503);
      expect(res.json().code).toBe('unavailable');
    });
  });

  it('honours proxy headers with LARDER_TRUST_PROXY, and ignores a corrupt version.json', async () => {
    const extraEnv = {
      LARDER_TRUST_PROXY: 'true',
      LARDER_VERSION_CODE: '7',
      LARDER_VERSION_NAME: '0.7',
      LARDER_APK_FILE: 'my-app.apk',
    };
    const prepare = (env: Record<string, string>) =>
      fs.writeFileSync(path.join(env.LARDER_DATA_DIR!, 'version.json'), '{"versionCode": "x"');
    await inTestApp(dialect, { extraEnv, prepare }, async (t) => {
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/version',
        headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'larder.example.org' },
      });
      expect(res.json()).toEqual({
        versionCode: 7,
        versionName: '0.7',
        apkUrl: 'https://larder.example.org/static/my-app.apk',
      });
    });
  });
});
