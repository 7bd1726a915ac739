import fs from 'node:fs';
import { expect, it } from 'vitest';
import {
  buildTestApp,
  describeOnPostgres,
  destroyTestEnvironment,
  testEnvironment,
} from '#test/helpers/app.js';

const OWN = /^larder-\d{8}-\d{6}(-\d+)?\.sql\.gz$/;

describeOnPostgres('scheduled backups shared by two instances on one schema', () => {
  it('write one backup per interval between them, not one each', async () => {
    const intervalSeconds = 2;
    const windowMs = 9_000;
    const env = testEnvironment('postgres', {
      LARDER_BACKUP_INTERVAL: String(intervalSeconds),
      LARDER_BACKUP_KEEP: '100',
    });
    const a = await buildTestApp('postgres', { env });
    const b = await buildTestApp('postgres', { env });
    const started = Date.now();
    try {
      // a wait about time: both schedules run on the real clock for a few intervals
      await new Promise((resolve) => setTimeout(resolve, windowMs));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    const elapsed = Date.now() - started;
    const written = fs.readdirSync(a.config.backupDir).filter((n) => OWN.test(n));
    // each backup needs the newest one to be an interval old, and the lock serialises the check:
    // at most one per interval (plus the first); two uncoordinated schedules would write twice that
    const bound = Math.floor(elapsed / 1000 / intervalSeconds) + 1;
    expect(written.length).toBeGreaterThanOrEqual(2);
    expect(written.length).toBeLessThanOrEqual(bound);
    await destroyTestEnvironment(env);
  }, 60_000);
});
