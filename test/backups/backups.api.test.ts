import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, loginAsAdmin } from '#test/helpers/app.js';
import { inTestApp, useTestApp } from '#test/helpers/fixtures.js';
import { postBackup } from './helpers.js';
import { fileResponseCases } from '#test/helpers/file-responses.js';

const NAME = /^larder-\d{8}-\d{6}(-\d+)?\.sql\.gz$/;

describe.each(DIALECTS)('backups through the admin API (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const { admin } = t;
  const user = t.user('backup-user');

  const post = () => postBackup(t.app, admin);
  const dump = (name: string) =>
    zlib.gunzipSync(fs.readFileSync(path.join(t.config.backupDir, name))).toString('utf8');

  it('POST writes a gzip SQL dump of every table and answers 201 with its entry', async () => {
    const res = await post();
    expect(res.statusCode).toBe(201);
    const entry = res.json();
    expect(entry.name).toMatch(NAME);
    const file = path.join(t.config.backupDir, entry.name);
    expect(entry.sizeBytes).toBe(fs.statSync(file).size);
    expect(Math.abs(entry.createdAt - Date.now())).toBeLessThan(60_000);
    const text = dump(entry.name);
    expect(text.startsWith('-- Larder backup\n-- format: 1\n')).toBe(true);
    expect(text).toContain(`-- dialect: ${dialect}`);
    expect(text).toMatch(/-- migrations: 20261123_0001_core/);
    expect(text).toContain('-- table: users');
    expect(text).toContain("'backup-user'");
    expect(text.indexOf('-- table: inventories')).toBeLessThan(text.indexOf('-- table: users'));
    expect(text).toMatch(/-- end of backup: \d+ rows\n$/);
    expect(text).not.toContain('kysely_migration"');
    // only the finished file is in the directory: no temp file left behind
    expect(fs.readdirSync(t.config.backupDir).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('two backups in the same second get distinct names; the list is newest first', async () => {
    const [a, b] = await Promise.all([post(), post()]);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(a.json().name).not.toBe(b.json().name);
    t.clock.advance(5_000);
    const c = (await post()).json();
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/admin/backups',
      headers: admin.headers,
    });
    expect(list.statusCode).toBe(200);
    const entries = list.json();
    expect(entries[0]).toEqual(c);
    const times = entries.map((e: { createdAt: number }) => e.createdAt);
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    expect(entries.map((e: { name: string }) => e.name)).toEqual(
      expect.arrayContaining([a.json().name, b.json().name]),
    );
  });

  it('lists only *.sql.gz files, not temp files or anything else', async () => {
    fs.writeFileSync(path.join(t.config.backupDir, 'notes.txt'), 'x');
    fs.writeFileSync(path.join(t.config.backupDir, '.larder-1-abc.partial'), 'half');
    fs.writeFileSync(path.join(t.config.backupDir, 'copied-by-hand.sql.gz'), zlib.gzipSync('x'));
    fs.mkdirSync(path.join(t.config.backupDir, 'dir.sql.gz'));
    const names = (
      await t.app.inject({ method: 'GET', url: '/api/admin/backups', headers: admin.headers })
    )
      .json()
      .map((e: { name: string }) => e.name);
    expect(names).toContain('copied-by-hand.sql.gz');
    expect(names.every((n: string) => n.endsWith('.sql.gz'))).toBe(true);
    expect(names).not.toContain('dir.sql.gz');
  });

  it('an admin downloads a backup (bearer header or ?token=) byte for byte', async () => {
    const { name } = (await post()).json();
    const bytes = fs.readFileSync(path.join(t.config.backupDir, name));
    const byHeader = await t.app.inject({
      method: 'GET',
      url: `/api/admin/backups/${name}`,
      headers: admin.headers,
    });
    expect(byHeader.statusCode).toBe(200);
    expect(byHeader.headers['content-type']).toBe('application/gzip');
    expect(byHeader.headers['content-disposition']).toBe(`attachment; filename=${name}`);
    expect(byHeader.headers['cache-control']).toBe('no-store');
    expect(byHeader.rawPayload.equals(bytes)).toBe(true);
    const byQuery = await t.app.inject({
      method: 'GET',
      url: `/api/admin/backups/${name}?token=${admin.token}`,
    });
    expect(byQuery.statusCode).toBe(200);
    expect(byQuery.rawPayload.equals(bytes)).toBe(true);
  });

  describe('a backup download', () => {
    let name = '';
    let bytes = Buffer.alloc(0);
    beforeAll(async () => {
      name = (await post()).json().name;
      bytes = fs.readFileSync(path.join(t.config.backupDir, name));
    });
    fileResponseCases(() => ({
      app: t.app,
      url: `/api/admin/backups/${name}`,
      headers: admin.headers,
      bytes,
      secret: t.config.backupDir,
    }));
  });

  it('a symlink in the backup directory is neither listed nor served', async () => {
    fs.symlinkSync('/etc/passwd', path.join(t.config.backupDir, 'sneaky.sql.gz'));
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/admin/backups',
      headers: admin.headers,
    });
    expect(list.json().map((e: { name: string }) => e.name)).not.toContain('sneaky.sql.gz');
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/admin/backups/sneaky.sql.gz',
      headers: admin.headers,
    });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('root:');
  });

  it('recreates a backup directory removed while the server runs', async () => {
    const moved = `${t.config.backupDir}-moved`;
    fs.renameSync(t.config.backupDir, moved);
    try {
      const res = await post();
      expect(res.statusCode).toBe(201);
      expect(fs.existsSync(path.join(t.config.backupDir, res.json().name))).toBe(true);
    } finally {
      fs.rmSync(t.config.backupDir, { recursive: true });
      fs.renameSync(moved, t.config.backupDir);
    }
  });

  it.each([
    ['..%2F..%2Fetc%2Fpasswd', 400],
    ['..%2Flarder.db', 400],
    ['.larder-1-abc.partial', 400],
    ['notes.txt', 400],
    ['%2Fetc%2Fpasswd.sql.gz', 400],
    ['missing.sql.gz', 404],
  ])('download of %s is %i with {message, code}', async (name, status) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/admin/backups/${name}`,
      headers: admin.headers,
    });
    expect(res.statusCode).toBe(status);
    expect(res.json().code).toBe(status === 400 ? 'validation_failed' : 'not_found');
  });

  it.each([
    ['GET', '/api/admin/backups'],
    ['POST', '/api/admin/backups'],
    ['GET', '/api/admin/backups/copied-by-hand.sql.gz'],
  ] as const)('%s %s: 401 without a token, 403 for a non-admin', async (method, url) => {
    const anonymous = await t.app.inject({ method, url });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().code).toBe('unauthorized');
    const nonAdmin = await t.app.inject({ method, url, headers: user.headers });
    expect(nonAdmin.statusCode).toBe(403);
    expect(nonAdmin.json().code).toBe('forbidden');
    const nonAdminQuery = await t.app.inject({ method, url: `${url}?token=${user.token}` });
    expect(nonAdminQuery.statusCode).toBe(method === 'GET' && url.endsWith('.gz') ? 403 : 401);
  });
});

describe.each(DIALECTS)('the backup directory (%s)', (dialect) => {
  it('falls back to <dataDir>/backups when LARDER_BACKUP_DIR cannot be created', async () => {
    const blockBackupDir = (env: Record<string, string>) => {
      const blocker = path.join(env.LARDER_DATA_DIR!, 'not-a-directory');
      fs.writeFileSync(blocker, 'a file where a directory should be');
      env.LARDER_BACKUP_DIR = path.join(blocker, 'backups');
    };
    await inTestApp(dialect, { prepare: blockBackupDir }, async (t) => {
      const admin = await loginAsAdmin(t.app);
      const res = await postBackup(t.app, admin);
      expect(res.statusCode).toBe(201);
      const fallback = path.join(t.env.LARDER_DATA_DIR!, 'backups');
      expect(fs.existsSync(path.join(fallback, res.json().name))).toBe(true);
      const list = await t.app.inject({
        method: 'GET',
        url: '/api/admin/backups',
        headers: admin.headers,
      });
      expect(list.json()[0].name).toBe(res.json().name);
    });
  });
});
