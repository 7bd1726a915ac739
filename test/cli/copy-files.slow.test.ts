import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Storage } from '#src/storage/s3.storage.js';
import { destroyTestEnvironment, loginAsAdmin, testEnvironment } from '#test/helpers/app.js';
import { inTestApp } from '#test/helpers/fixtures.js';
import { postBackup } from '#test/backups/helpers.js';
import { putApk } from '#test/releases/helpers.js';
import { analyze, fixture, upload } from '#test/resources/helpers.js';
import { startS3Peer, type S3Peer } from '#test/storage/s3-peer.js';
import { runCli } from './run-cli.js';

// An installation that kept its files in folders moves them into a bucket with the CLI, then
// runs on LARDER_STORAGE=s3 and finds every file where it was.
describe('larder copy-files-to-bucket', () => {
  let peer: S3Peer;
  let env: Record<string, string>;
  const pdf = fixture('water-guide.pdf');
  const apk = Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(20_000, 3)]);
  const before = { download: '', backup: '', backupBytes: Buffer.alloc(0), staged: {} };

  beforeAll(async () => {
    peer = await startS3Peer();
    env = testEnvironment('sqlite');
    await inTestApp('sqlite', { env }, async (t) => {
      const admin = await loginAsAdmin(t.app);
      const created = await upload(t.app, admin, 'guide.pdf', { title: 'Guide' }, pdf);
      expect(created.statusCode).toBe(201);
      before.download = new URL(created.json().downloadUrl).pathname;
      const put = await putApk(t.app, apk, { 'content-type': 'application/octet-stream' });
      expect(put.statusCode).toBe(200);
      const backup = await postBackup(t.app, admin);
      before.backup = backup.json().name;
      before.backupBytes = fs.readFileSync(path.join(env.LARDER_BACKUP_DIR!, before.backup));
      const analyzed = await analyze(t.app, admin, 'water-guide.pdf');
      expect(analyzed.statusCode).toBe(200);
      before.staged = analyzed.json()[0];
    });
    // a temp file a crash left behind, and a file that is not a backup: neither is copied
    fs.writeFileSync(path.join(env.LARDER_DATA_DIR!, 'resources', '.tmp-left-behind'), 'x');
    fs.writeFileSync(path.join(env.LARDER_BACKUP_DIR!, 'notes.txt'), 'x');
  }, 60_000);
  afterAll(async () => {
    await destroyTestEnvironment(env);
    await peer.close();
  });

  it('refuses to run without a bucket configured', async () => {
    const r = await runCli(env, ['copy-files-to-bucket']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('LARDER_STORAGE=s3');
  });

  it('copies resources, staged files, the APK and backups under their keys, once', async () => {
    const first = await runCli({ ...env, ...peer.env }, ['copy-files-to-bucket']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/copied 4 file\(s\), \d+ bytes, into s3:\/\/larder-[0-9a-f]+/);
    const bucket = createS3Storage(peer.settings);
    try {
      const keys = (await bucket.list('')).map((e) => e.key).sort();
      expect(keys).toEqual([
        `backups/${before.backup}`,
        expect.stringMatching(/^resources\/[^.][^/]*$/),
        expect.stringMatching(/^staging\/[^/]+\/[^.][^/]*$/),
        'static/larder.apk',
      ]);
    } finally {
      bucket.close();
    }
    const again = await runCli({ ...env, ...peer.env }, ['copy-files-to-bucket']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('copied 0 file(s), 0 bytes');
    expect(again.stderr).toContain('4 were there already');
  });

  it('the server on the bucket serves what the folders held', async () => {
    // the folders go: everything must now come from the bucket
    for (const dir of ['resources', 'staging', 'static']) {
      fs.rmSync(path.join(env.LARDER_DATA_DIR!, dir), { recursive: true, force: true });
    }
    fs.rmSync(env.LARDER_BACKUP_DIR!, { recursive: true, force: true });
    await inTestApp('sqlite', { env: { ...env, ...peer.env } }, async (t) => {
      const admin = await loginAsAdmin(t.app);
      const download = await t.app.inject({ url: before.download, headers: admin.headers });
      expect(download.statusCode).toBe(200);
      expect(download.rawPayload.equals(pdf)).toBe(true);
      const served = await t.app.inject({ url: '/static/larder.apk' });
      expect(served.rawPayload.equals(apk)).toBe(true);
      const backup = await t.app.inject({
        url: `/api/admin/backups/${before.backup}`,
        headers: admin.headers,
      });
      expect(backup.rawPayload.equals(before.backupBytes)).toBe(true);
      const confirmed = await t.app.inject({
        method: 'POST',
        url: '/api/admin/resources/confirm',
        headers: admin.headers,
        payload: { ...before.staged, title: 'Staged before the move' },
      });
      expect(confirmed.statusCode, confirmed.body).toBe(201);
    });
  });
});
