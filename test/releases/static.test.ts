import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/app.js';
import { useTestApp } from '../helpers/fixtures.js';

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

  it('answers If-None-Match with the current ETag with 304 and no body', async () => {
    const etag = (await get('/static/larder.apk')).headers.etag as string;
    const res = await get('/static/larder.apk', { 'if-none-match': etag });
    expect(res.statusCode).toBe(304);
    expect(res.rawPayload.length).toBe(0);
    const stale = await get('/static/larder.apk', { 'if-none-match': '"0-0"' });
    expect(stale.statusCode).toBe(200);
  });

  it.each([
    ['bytes=0-9', 0, 9],
    ['bytes=990-', 990, 999],
    ['bytes=-5', 995, 999],
    ['bytes=500-5000', 500, 999],
  ])('Range %s answers 206 with exactly those bytes', async (range, start, end) => {
    const res = await get('/static/larder.apk', { range });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/${APK.length}`);
    expect(res.headers['content-length']).toBe(String(end - start + 1));
    expect(res.rawPayload.equals(APK.subarray(start, end + 1))).toBe(true);
  });

  it('a range beyond the end is 416 with the file size', async () => {
    const res = await get('/static/larder.apk', { range: 'bytes=5000-' });
    expect(res.statusCode).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${APK.length}`);
    expect(res.json().message).toMatch(/range/);
  });

  it('If-Range with an old ETag sends the whole file', async () => {
    const res = await get('/static/larder.apk', { range: 'bytes=0-9', 'if-range': '"1-1"' });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.length).toBe(APK.length);
  });

  it('HEAD gives the headers without the body', async () => {
    const res = await t.app.inject({ method: 'HEAD', url: '/static/larder.apk' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe(String(APK.length));
    expect(res.rawPayload.length).toBe(0);
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
