import fs from 'node:fs';
import { expect, it } from 'vitest';
import { describeOnPostgres } from '#test/helpers/app.js';
import { inTestApp } from '#test/helpers/fixtures.js';

const OWN = /^larder-\d{8}-\d{6}(-\d+)?\.sql\.gz$/;

describeOnPostgres('scheduled backups shared by two instances on one schema', () => {
  it('write one backup per interval between them, not one each', async () => {
    const intervalSeconds = 2;
    const windowMs = 9_000;
    const extraEnv = {
      LARDER_BACKUP_INTERVAL: String(intervalSeconds),
      LARDER_BACKUP_KEEP: '100',
    };
    let written: string[] = [];
    let elapsed = 0;
    await inTestApp('postgres', { extraEnv }, async (a) => {
      let started = 0;
      await inTestApp('postgres', { env: a.env }, async () => {
        started = Date.now();
        // a wait about time: both schedules run on the real clock for a few intervals
        await new Promise((resolve) => setTimeout(resolve, windowMs));
      });
      written = fs.readdirSync(a.config.backupDir).filter((n) => OWN.test(n));
      elapsed = Date.now() - started;
    });
    // each backup needs the newest one to be an interval old, and the lock serialises the check:
    // at most one per interval (plus the first); two uncoordinated schedules would write twice that
    const bound = Math.floor(elapsed / 1000 / intervalSeconds) + 1;
    expect(written.length).toBeGreaterThanOrEqual(2);
    expect(written.length).toBeLessThanOrEqual(bound);
  }, 60_000);
});
