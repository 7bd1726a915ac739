import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { http as call, useServerProcesses } from '#test/helpers/server-process.js';
import { runCli } from '#test/cli/run-cli.js';
import { HOUR_AGO, killedRestore, putItems, restorePhase, tempsUnder } from './crash-helpers.js';

/**
 * Crash safety of backups: the server is SIGKILLed mid-backup, the CLI mid-restore;
 * what is found afterwards is whole: only finished backups are listed, the database is wholly
 * empty or wholly restored.
 */
describe.each(DIALECTS)('crash safety of backups (%s)', (dialect) => {
  const servers = useServerProcesses(dialect);

  it('a backup killed mid-write is never listed and its temp file is removed', async () => {
    const backupDir = servers.env.LARDER_BACKUP_DIR!;
    let answered = 0;
    // the kill lands while a backup is being written: once one has been answered and the next
    // one's temp file is there. Should that backup finish between the look and the kill (its temp
    // file then gone), the kill missed: the next attempt, on the same data, tries again.
    let leftAtKill: string[] = [];
    for (let attempt = 0; attempt < 3 && leftAtKill.length === 0; attempt++) {
      const server = await servers.start();
      if (attempt === 0) expect((await putItems(server.base, server.token, 3000)).status).toBe(200);
      const writes = backupLoop(server.base, server.token);
      await vi.waitFor(
        () => {
          expect(writes.answered()).toBeGreaterThan(0);
          expect(tempsUnder(backupDir)).not.toEqual([]);
        },
        { timeout: 60_000, interval: 5 },
      );
      server.child.kill('SIGKILL');
      await Promise.all([writes.stop(), server.stop()]);
      answered += writes.answered();
      leftAtKill = tempsUnder(backupDir);
    }
    expect(leftAtKill).not.toEqual([]);

    for (const file of tempsUnder(backupDir)) fs.utimesSync(file, HOUR_AGO(), HOUR_AGO());
    const server = await servers.start();
    const list = await call(server.base, 'GET', '/api/admin/backups', {
      token: server.token,
    });
    expect(list.status).toBe(200);
    // LARDER_BACKUP_KEEP (14) keeps the newest
    expect(list.body.length).toBeGreaterThanOrEqual(Math.min(answered, 14));
    for (const entry of list.body as { name: string }[]) {
      expect(entry.name).toMatch(/^larder-\d{8}-\d{6}(-\d+)?\.sql\.gz$/);
      const text = zlib.gunzipSync(fs.readFileSync(path.join(backupDir, entry.name))).toString();
      expect(text).toMatch(/-- end of backup: \d+ rows\n?$/);
    }
    expect(tempsUnder(backupDir)).toEqual([]);
    await server.stop();
  }, 180_000);

  it('a restore killed mid-way leaves the database wholly empty or wholly restored', async () => {
    const source = servers.environment();
    const server = await servers.start(source);
    const { base, token } = server;
    expect((await putItems(base, token, 3000)).status).toBe(200);
    const backup = await call(base, 'POST', '/api/admin/backups', { token });
    expect(backup.status).toBe(201);
    await server.stop();
    const dump = path.join(source.LARDER_BACKUP_DIR!, backup.body.name as string);

    // the kill lands inside the restore proper (see killedRestore); a restore that ends before
    // that phase is seen (a fast machine) is tried again on a fresh database
    const { migrations } = await restorePhase(source);
    expect(migrations).toBeGreaterThan(0);
    let target = servers.environment();
    let killed = { code: null as string | number | null, restoring: false };
    for (let attempt = 0; attempt < 3 && killed.code !== 'SIGKILL'; attempt++) {
      if (attempt > 0) target = servers.environment();
      killed = await killedRestore(target, dump, migrations);
    }
    expect(killed).toEqual({ code: 'SIGKILL', restoring: true });

    const second = await runCli(target, ['restore', dump]);
    if (second.code === 0) {
      // wholly empty: the kill landed before the commit
    } else {
      expect(second.stderr).toMatch(/the database is not empty/);
      // wholly restored: the kill landed after the commit
      expect(await itemCount(target)).toBe(3000);
      const forced = await runCli(target, ['restore', dump, '--force']);
      expect(forced.code, forced.stderr).toBe(0);
    }
    expect(await itemCount(target)).toBe(3000);
  }, 240_000);

  async function itemCount(env: Record<string, string>): Promise<number> {
    const server = await servers.start(env);
    const inventory = await call(server.base, 'GET', '/api/inventory', {
      token: server.token,
    });
    await server.stop();
    return (inventory.body.items as unknown[]).length;
  }
});

/** POSTs one backup after another until stopped (or the server is gone); counts the 201s. */
function backupLoop(base: string, token: string) {
  let answered = 0;
  let stopped = false;
  const running = (async () => {
    while (!stopped) {
      try {
        const res = await call(base, 'POST', '/api/admin/backups', { token });
        if (res.status === 201) answered++;
      } catch {
        return; // the kill
      }
    }
  })();
  return {
    answered: () => answered,
    stop: () => ((stopped = true), running),
  };
}
