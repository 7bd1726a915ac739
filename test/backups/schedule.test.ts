import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  DIALECTS,
  buildTestApp,
  destroyTestEnvironment,
  loginAsAdmin,
  testEnvironment,
} from '../helpers/app.js';

const OWN = /^larder-\d{8}-\d{6}(-\d+)?\.sql\.gz$/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const own = (dir: string) => fs.readdirSync(dir).filter((n) => OWN.test(n));

describe.each(DIALECTS)('scheduled backups and the backup directory (%s)', (dialect) => {
  it('LARDER_BACKUP_INTERVAL writes backups on its own, keeps the newest LARDER_BACKUP_KEEP, stops on close', async () => {
    const env = testEnvironment(dialect, {
      LARDER_BACKUP_INTERVAL: '1',
      LARDER_BACKUP_KEEP: '2',
    });
    const t = await buildTestApp(dialect, { env });
    const dir = t.config.backupDir;
    try {
      fs.writeFileSync(path.join(dir, 'copied-by-hand.sql.gz'), zlib.gzipSync('x'));
      const seen = new Set<string>();
      for (let waited = 0; seen.size < 3 && waited < 20_000; waited += 200) {
        for (const name of own(dir)) seen.add(name);
        expect(own(dir).length).toBeLessThanOrEqual(2 + 1); // a new one may land before pruning
        await sleep(200);
      }
      expect(seen.size).toBeGreaterThanOrEqual(3);
      await sleep(300);
      expect(own(dir).length).toBeLessThanOrEqual(2);
      expect(fs.existsSync(path.join(dir, 'copied-by-hand.sql.gz'))).toBe(true); // not ours to prune
    } finally {
      await t.close();
    }
    const after = own(dir).sort();
    await sleep(2_500);
    expect(own(dir).sort()).toEqual(after); // the timer is gone with the app
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.partial'))).toEqual([]);
    await destroyTestEnvironment(env);
  }, 60_000);

  it('falls back to <dataDir>/backups when LARDER_BACKUP_DIR cannot be created', async () => {
    const env = testEnvironment(dialect);
    const blocker = path.join(env.LARDER_DATA_DIR!, 'not-a-directory');
    fs.writeFileSync(blocker, 'a file where a directory should be');
    env.LARDER_BACKUP_DIR = path.join(blocker, 'backups');
    const t = await buildTestApp(dialect, { env });
    try {
      const admin = await loginAsAdmin(t.app);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/admin/backups',
        headers: admin.headers,
      });
      expect(res.statusCode).toBe(201);
      const fallback = path.join(env.LARDER_DATA_DIR!, 'backups');
      expect(fs.existsSync(path.join(fallback, res.json().name))).toBe(true);
      const list = await t.app.inject({
        method: 'GET',
        url: '/api/admin/backups',
        headers: admin.headers,
      });
      expect(list.json()[0].name).toBe(res.json().name);
    } finally {
      await t.close();
      await destroyTestEnvironment(env);
    }
  });
});
