import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { DIALECTS, destroyTestEnvironment, testEnvironment } from '#test/helpers/app.js';
import { startTestApp } from '#test/helpers/fixtures.js';

const OWN = /^larder-\d{8}-\d{6}(-\d+)?\.sql\.gz$/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const own = (dir: string) => fs.readdirSync(dir).filter((n) => OWN.test(n));

describe.each(DIALECTS)('scheduled backups (%s)', (dialect) => {
  it('LARDER_BACKUP_INTERVAL writes backups on its own, keeps the newest LARDER_BACKUP_KEEP, stops on close', async () => {
    const env = testEnvironment(dialect, {
      LARDER_BACKUP_INTERVAL: '1',
      LARDER_BACKUP_KEEP: '2',
    });
    const t = await startTestApp(dialect, { env });
    const dir = t.config.backupDir;
    try {
      fs.writeFileSync(path.join(dir, 'copied-by-hand.sql.gz'), zlib.gzipSync('x'));
      const seen = new Set<string>();
      // waits about time: the schedule runs on the real clock, one backup a second
      for (let waited = 0; seen.size < 3 && waited < 20_000; waited += 200) {
        for (const name of own(dir)) seen.add(name);
        expect(own(dir).length).toBeLessThanOrEqual(2 + 1); // a new one may land before pruning
        await sleep(200);
      }
      expect(seen.size).toBeGreaterThanOrEqual(3);
      // the pruning that follows the latest backup
      await vi.waitFor(() => expect(own(dir).length).toBeLessThanOrEqual(2), 10_000);
      expect(fs.existsSync(path.join(dir, 'copied-by-hand.sql.gz'))).toBe(true); // not ours to prune
    } finally {
      await t.close();
    }
    const after = own(dir).sort();
    await sleep(2_500); // more than two intervals: a timer left running would have written again
    expect(own(dir).sort()).toEqual(after); // the timer is gone with the app
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.partial'))).toEqual([]);
    await destroyTestEnvironment(env);
  }, 60_000);
});
