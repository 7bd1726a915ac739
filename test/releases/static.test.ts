import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { fileResponseCases } from '#test/helpers/file-responses.js';

const APK = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));

describe.each(DIALECTS)('/static files (%s)', (dialect) => {
  const t = useTestApp(dialect);
  beforeAll(() => {
    const dataDir = t.config.dataDir;
    fs.mkdirSync(path.join(dataDir, 'static', 'old'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'static', 'larder.apk'), APK);
    fs.writeFileSync(path.join(dataDir, 'static', 'old', 'larder 0.9.apk'), 'old');
    fs.writeFileSync(path.join(dataDir, 'static', '.hidden'), 'hidden');
    fs.writeFileSync(path.join(dataDir, 'secret.txt'), 'top secret');
    fs.symlinkSync(path.join(dataDir, 'secret.txt'), path.join(dataDir, 'static', 'link.apk'));
  });

  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers });

  it('serves the APK with the Android package type, length, ETag and no-sniff', async () => {
    const res = await get('/static/larder.apk');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.android.package-archive');
    expect(res.headers['content-length']).toBe(String(APK.length));
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers.etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(res.rawPayload.equals(APK)).toBe(true);
  });

  it('a malformed escape is 400 and reveals nothing', async () => {
    const res = await get('/static/%zz');
    expect(res.statusCode).toBe(400);
    expect(res.body).not.toContain('top secret');
  });

  it('serves files in sub-folders by their encoded names', async () => {
    const res = await get('/static/old/larder%200.9.apk');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('old');
  });

  fileResponseCases(() => ({
    app: t.app,
    url: '/static/larder.apk',
    bytes: APK,
    secret: t.config.dataDir,
  }));

  it('the ETag is "<size>-<mtime>" and If-Modified-Since is answered too', async () => {
    const res = await get('/static/larder.apk');
    expect(res.headers.etag).toMatch(/^"3e8-[0-9a-f]+"$/);
    const since = await get('/static/larder.apk', {
      'if-modified-since': res.headers['last-modified'] as string,
    });
    expect(since.statusCode).toBe(304);
  });

  it('Range a-b past the end is cut to the file: 206 with the rest', async () => {
    const res = await get('/static/larder.apk', { range: 'bytes=500-5000' });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 500-999/${APK.length}`);
    expect(res.rawPayload.equals(APK.subarray(500))).toBe(true);
  });

  it('a file whose name holds a percent sign is served as itself', async () => {
    fs.writeFileSync(path.join(t.config.dataDir, 'static', '100%25.txt'), 'escaped');
    fs.writeFileSync(path.join(t.config.dataDir, 'static', '100%.txt'), 'percent');
    expect((await get('/static/100%25.txt')).body).toBe('percent');
    expect((await get('/static/100%2525.txt')).body).toBe('escaped');
  });

  it.each([
    '/static/../secret.txt',
    '/static/%2e%2e/secret.txt',
    '/static/%2E%2E%2Fsecret.txt',
    '/static/old/%2e%2e/%2e%2e/secret.txt',
    '/static/..%5csecret.txt',
    '/static/..%5Csecret.txt',
    '/static/old%2F..%2F..%2Fsecret.txt',
    '/static/%252e%252e/secret.txt',
    '/static/link.apk',
    '/static/.hidden',
    '/static/',
    '/static/old',
    '/static/missing.apk',
    '/static/larder.apk%00.txt',
    `/static/${encodeURIComponent(path.join(process.cwd(), 'package.json'))}`,
  ])('%s is 404 and reveals nothing', async (url) => {
    const res = await get(url);
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('not_found');
    expect(res.body).not.toContain('top secret');
  });
});
