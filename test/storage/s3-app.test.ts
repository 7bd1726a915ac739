import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, destroyTestEnvironment, testEnvironment } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { postBackup } from '#test/backups/helpers.js';
import { putApk } from '#test/releases/helpers.js';
import {
  analyze,
  filesUnder,
  fixture,
  sha256,
  upload,
  useUploadedResource,
} from '#test/resources/helpers.js';
import { startS3Peer, type S3Peer } from './s3-peer.js';

/** One app with LARDER_STORAGE=s3 against s3rver; its environment is removed afterwards. */
function useS3App(dialect: (typeof DIALECTS)[number]) {
  let peer: S3Peer;
  let env: Record<string, string>;
  beforeAll(async () => {
    peer = await startS3Peer();
    env = { ...testEnvironment(dialect), ...peer.env };
  });
  const t = useTestApp(dialect, { env: () => env });
  afterAll(async () => {
    await destroyTestEnvironment(env);
    await peer.close();
  });
  return t;
}

describe.each(DIALECTS)('files in S3-compatible storage (%s)', (dialect) => {
  const t = useS3App(dialect);
  const member = t.user('reader');
  const bytes = fixture('water-guide.pdf');
  const guide = useUploadedResource(t, member, { filename: 'guide.pdf', title: 'Guide', bytes });
  /** files the storage keeps: none may be in the data dir (tmp/ holds only files being written) */
  const keptLocally = () =>
    ['resources', 'staging', 'backups', 'static', 'tmp'].flatMap((dir) =>
      filesUnder(path.join(t.config.dataDir, dir)),
    );

  it('an uploaded resource downloads whole, its SHA-256 the ETag', async () => {
    const res = await t.app.inject({ url: guide.url, headers: member.headers });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(bytes)).toBe(true);
    expect(res.headers.etag).toBe(`"${sha256(bytes)}"`);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['last-modified']).toBeDefined();
    expect(keptLocally()).toEqual([]);
  });

  guide.fileResponseCases();

  it('an analyzed file is staged in the bucket and confirmed into the catalog', async () => {
    const analyzed = await analyze(t.app, t.admin, 'water-guide.pdf');
    expect(analyzed.statusCode).toBe(200);
    const [pdf] = analyzed.json() as { filename: string }[];
    const staged = await t.app.larder.storage.list('staging/');
    expect(staged).toHaveLength(1);
    expect(keptLocally()).toEqual([]);
    const confirmed = await t.app.inject({
      method: 'POST',
      url: '/api/admin/resources/confirm',
      headers: t.admin.headers,
      payload: { ...pdf, title: 'Confirmed' },
    });
    expect(confirmed.statusCode).toBe(201);
    expect(await t.app.larder.storage.list('staging/')).toEqual([]);
    const download = await t.app.inject({
      url: new URL(confirmed.json().downloadUrl).pathname,
      headers: member.headers,
    });
    expect(download.rawPayload.equals(bytes)).toBe(true);
  });

  it('a backup is written, listed, downloaded (with Range) and deleted in the bucket', async () => {
    const created = await postBackup(t.app, t.admin);
    expect(created.statusCode).toBe(201);
    const { name, sizeBytes } = created.json();
    const list = await t.app.inject({ url: '/api/admin/backups', headers: t.admin.headers });
    expect(list.json()).toEqual([expect.objectContaining({ name, sizeBytes })]);
    const download = await t.app.inject({
      url: `/api/admin/backups/${name}`,
      headers: t.admin.headers,
    });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('application/gzip');
    expect(zlib.gunzipSync(download.rawPayload).toString('utf8')).toContain('-- table: users');
    const tail = await t.app.inject({
      url: `/api/admin/backups/${name}`,
      headers: { ...t.admin.headers, range: 'bytes=-4' },
    });
    expect(tail.statusCode).toBe(206);
    expect(tail.rawPayload.equals(download.rawPayload.subarray(-4))).toBe(true);
    const info = await t.app.inject({ url: '/api/admin/backups/info', headers: t.admin.headers });
    expect(info.json().directory).toMatch(/^s3:\/\/larder-[0-9a-f]+\/backups$/);
    expect(keptLocally()).toEqual([]);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/admin/backups/${name}`,
      headers: t.admin.headers,
    });
    expect(deleted.statusCode).toBe(204);
    expect(
      (await t.app.inject({ url: '/api/admin/backups', headers: t.admin.headers })).json(),
    ).toEqual([]);
  });

  it('PUT /api/admin/apk stores the APK in the bucket; /static/ and the home page serve it', async () => {
    const apk = Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(50_000, 7)]);
    const put = await putApk(t.app, apk);
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual({ size: apk.length, sha256: sha256(apk) });
    const res = await t.app.inject({ url: `/static/${t.config.apkFile}` });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(apk)).toBe(true);
    expect(res.headers['content-type']).toBe('application/vnd.android.package-archive');
    const home = await t.app.inject({ url: '/' });
    expect(home.body).toContain(`/static/${t.config.apkFile}`);
    expect((await t.app.inject({ url: '/static/.hidden' })).statusCode).toBe(404);
    expect((await t.app.inject({ url: '/static/none.apk' })).statusCode).toBe(404);
    expect(keptLocally()).toEqual([]);
  });
});

describe('S3 storage that cannot be reached', () => {
  let env: Record<string, string>;
  beforeAll(async () => {
    const peer = await startS3Peer();
    await peer.close(); // nothing listens on its port any more
    env = { ...testEnvironment('sqlite'), ...peer.env };
  });
  const t = useTestApp('sqlite', { env: () => env });
  afterAll(() => destroyTestEnvironment(env));

  it('answers 503 {message, code} without a stack, and the server goes on', async () => {
    for (const request of [
      { url: '/api/admin/backups' },
      { method: 'POST' as const, url: '/api/admin/backups' },
    ]) {
      const res = await t.app.inject({ ...request, headers: t.admin.headers });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ message: expect.any(String), code: 'storage_unavailable' });
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body).not.toMatch(/at .*\.js|127\.0\.0\.1/);
    }
    const bytes = fixture('water-guide.pdf');
    const res = await upload(t.app, t.admin, 'guide.pdf', { title: 'Guide' }, bytes);
    expect(res.statusCode).toBe(503);
    expect(res.json().code).toBe('storage_unavailable');
    expect((await t.app.inject({ url: '/health' })).statusCode).toBe(200);
  });
});
