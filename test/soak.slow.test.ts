import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { allFailures, report } from '#bench/soak/report.js';
import { ensureBuilt } from '#bench/lib/script.js';
import { runSoak } from '#bench/soak/run.js';
import { DIALECTS } from './helpers/app.js';

const root = path.resolve(import.meta.dirname, '..');

/** The CI size of `npm run soak` (bench/soak.ts): ~10 s, 30 clients, on each database. */
describe('soak (npm run soak, short)', () => {
  beforeAll(() => ensureBuilt(), 180_000);

  for (const dialect of DIALECTS) {
    it(`30 clients for 10 s on ${dialect}: no 5xx, messages exactly once after ack, inventories as modelled, RSS flat`, async () => {
      const target =
        dialect === 'postgres'
          ? { dialect, url: process.env.LARDER_TEST_DATABASE_URL! }
          : { dialect, url: null };
      const outcome = await runSoak({ seconds: 10, clients: 30, target, log: () => {} });
      const figures = report(outcome);
      expect(allFailures(outcome), figures).toEqual([]);
      const { stats, messages } = outcome.shared;
      // the mix really ran: every kind of request, messages, reconnects, items written
      for (const kind of [
        'login',
        'refresh',
        'full sync',
        'delta sync',
        'item create',
        'message send',
      ]) {
        expect(stats.latencies.get(kind)?.length ?? 0, `${kind}\n${figures}`).toBeGreaterThan(0);
      }
      expect([...messages.values()].filter((m) => m.sent).length).toBeGreaterThan(5);
      expect(stats.reconnects).toBeGreaterThan(0);
      expect(stats.modelItems).toBeGreaterThan(0);
      expect(outcome.rss.length).toBeGreaterThan(10);
    }, 90_000);
  }

  it('refuses sizes out of bounds before starting anything', () => {
    for (const args of [
      ['--seconds', '0'],
      ['--clients', '1'],
      ['--clients', 'many'],
    ]) {
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/soak.ts', ...args], {
        cwd: root,
        encoding: 'utf8',
      });
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/^soak: --(seconds|clients) must be/);
    }
  }, 30_000);
});
