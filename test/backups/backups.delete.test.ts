import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { postBackup } from './helpers.js';

describe.each(DIALECTS)('deleting a backup through the admin API (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const user = t.user('backup-reader');
  const del = (name: string, headers: Record<string, string> = t.admin.headers) =>
    t.app.inject({ method: 'DELETE', url: `/api/admin/backups/${name}`, headers });
  const names = async () =>
    (await t.app.inject({ method: 'GET', url: '/api/admin/backups', headers: t.admin.headers }))
      .json()
      .map((e: { name: string }) => e.name);

  it('deletes the named backup: 204, gone from the list and the folder', async () => {
    const keep = (await postBackup(t.app, t.admin)).json().name as string;
    t.clock.advance(2_000);
    const gone = (await postBackup(t.app, t.admin)).json().name as string;
    const res = await del(gone);
    expect(res.statusCode).toBe(204);
    expect(await names()).toEqual([keep]);
    expect(fs.existsSync(path.join(t.config.backupDir, gone))).toBe(false);
    expect((await del(gone)).statusCode).toBe(404);
  });

  it('refuses anything but an admin, and leaves the file', async () => {
    const name = (await postBackup(t.app, t.admin)).json().name as string;
    expect((await del(name, user.headers)).statusCode).toBe(403);
    expect((await del(name, {})).statusCode).toBe(401);
    expect(fs.existsSync(path.join(t.config.backupDir, name))).toBe(true);
  });

  it('never reaches outside the backup folder', async () => {
    const outside = path.join(path.dirname(t.config.backupDir), 'outside.sql.gz');
    fs.writeFileSync(outside, zlib.gzipSync('x'));
    fs.mkdirSync(path.join(t.config.backupDir, 'folder.sql.gz'), { recursive: true });
    fs.symlinkSync(outside, path.join(t.config.backupDir, 'link.sql.gz'));
    for (const [name, status] of [
      ['..%2Foutside.sql.gz', 400],
      ['%2E%2E%2Foutside.sql.gz', 400],
      ['.hidden.sql.gz', 400],
      ['notes.txt', 400],
      ['folder.sql.gz', 404],
      ['link.sql.gz', 404],
      ['unknown.sql.gz', 404],
    ] as const) {
      const res = await del(name);
      expect(res.statusCode, name).toBe(status);
      expect(res.json()).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    }
    expect(fs.existsSync(outside)).toBe(true);
    expect(fs.lstatSync(path.join(t.config.backupDir, 'link.sql.gz')).isSymbolicLink()).toBe(true);
    expect(fs.statSync(path.join(t.config.backupDir, 'folder.sql.gz')).isDirectory()).toBe(true);
  });

  it('tells the admin where backups go and how they are kept', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/admin/backups/info',
      headers: t.admin.headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      directory: t.config.backupDir,
      intervalSeconds: t.config.backupIntervalSeconds,
      keep: t.config.backupKeep,
    });
    const denied = await t.app.inject({
      method: 'GET',
      url: '/api/admin/backups/info',
      headers: user.headers,
    });
    expect(denied.statusCode).toBe(403);
  });
});
