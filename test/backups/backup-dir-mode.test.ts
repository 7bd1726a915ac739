import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DIALECTS,
  destroyTestEnvironment,
  loginAsAdmin,
  testEnvironment,
} from '#test/helpers/app.js';
import { inTestApp } from '#test/helpers/fixtures.js';

const mode = (file: string) => fs.statSync(file).mode & 0o777;

/** An existing LARDER_BACKUP_DIR made 0755 by hand is made private at start. */
describe.each(DIALECTS)('the backup directory (%s)', (dialect) => {
  it('an existing 0755 backup dir becomes 0700, its dumps 0600; other files are left', async () => {
    // outside the data dir, whose contents are tightened anyway
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-backups-'));
    const env = testEnvironment(dialect, { LARDER_BACKUP_DIR: dir });
    fs.chmodSync(dir, 0o755);
    fs.writeFileSync(path.join(dir, 'old.sql.gz'), '');
    fs.chmodSync(path.join(dir, 'old.sql.gz'), 0o644);
    fs.writeFileSync(path.join(dir, 'README.txt'), 'not a backup');
    fs.chmodSync(path.join(dir, 'README.txt'), 0o644);
    await inTestApp(dialect, { env }, async (t) => {
      expect(mode(dir)).toBe(0o700);
      expect(mode(path.join(dir, 'old.sql.gz'))).toBe(0o600);
      expect(mode(path.join(dir, 'README.txt'))).toBe(0o644);
      const admin = await loginAsAdmin(t.app);
      const list = await t.app.inject({ url: '/api/admin/backups', headers: admin.headers });
      expect(list.json().map((b: { name: string }) => b.name)).toEqual(['old.sql.gz']);
    });
    await destroyTestEnvironment(env);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
