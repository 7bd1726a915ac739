import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { inTestApp, useTestApp } from '#test/helpers/fixtures.js';
import { putApk } from '#test/releases/helpers.js';
import { MAX_APK_BYTES } from '#src/releases/apk-upload.js';

const apkBytes = (fill: number) =>
  Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(4096, fill)]);

describe.each(DIALECTS)('PUT /api/admin/apk (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const apkPath = () => path.join(t.config.dataDir, 'static', t.config.apkFile);
  const put = (payload: Buffer, headers: Record<string, string> = {}) =>
    putApk(t.app, payload, headers);

  it('stores the body as <data>/static/<apk file>, answers size and SHA-256, served at once', async () => {
    const apk = apkBytes(1);
    const res = await put(apk);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      size: apk.length,
      sha256: crypto.createHash('sha256').update(apk).digest('hex'),
    });
    expect(fs.readFileSync(apkPath()).equals(apk)).toBe(true);
    expect((fs.statSync(apkPath()).mode & 0o777).toString(8)).toBe('600');
    const served = await t.app.inject({ url: `/static/${t.config.apkFile}` });
    expect(served.rawPayload.equals(apk)).toBe(true);
    // application/octet-stream is taken too, and replaces it whole
    const next = apkBytes(2);
    expect((await put(next, { 'content-type': 'application/octet-stream' })).statusCode).toBe(200);
    expect(fs.readFileSync(apkPath()).equals(next)).toBe(true);
    expect(fs.readdirSync(path.dirname(apkPath())).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('a wrong or missing admin token is 401; a user token is not the admin token', async () => {
    const before = fs.readFileSync(apkPath());
    for (const authorization of ['Bearer wrong', `Bearer ${t.admin.token}`, '']) {
      const res = await put(apkBytes(3), { authorization });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('unauthorized');
    }
    expect(fs.readFileSync(apkPath()).equals(before)).toBe(true);
  });

  it('a body declared over the limit is 413 before it is read; the APK served before stays', async () => {
    const before = fs.readFileSync(apkPath());
    const res = await put(apkBytes(4), { 'content-length': String(MAX_APK_BYTES + 1) });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({
      message: expect.stringMatching(/200 MiB/),
      code: 'payload_too_large',
    });
    expect(fs.readFileSync(apkPath()).equals(before)).toBe(true);
  });

  it('another content type is 415', async () => {
    const res = await put(apkBytes(5), { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(415);
  });
});

describe('PUT /api/admin/apk without LARDER_ADMIN_TOKEN', () => {
  it('is 503, like POST /api/admin/version', async () => {
    await inTestApp('sqlite', { extraEnv: { LARDER_ADMIN_TOKEN: undefined } }, async (t) => {
      const res = await putApk(t.app, apkBytes(6), { authorization: 'Bearer x' });
      expect(res.statusCode).toBe(503);
      expect(res.json().code).toBe('unavailable');
    });
  });
});
