import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { call, seedBasics } from '#test/inventory/helpers.js';
import { putApk } from '#test/releases/helpers.js';
import { filesUnder, fixture, upload } from '#test/resources/helpers.js';
import { fillDisk, mountTmpfs, tmpfsUnavailable, type Tmpfs } from './tmpfs.js';
import { figures, itemWrite, startWriteStream } from './write-stream.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const unavailable = tmpfsUnavailable();
/** bigger than what is left once the disk is full, and than SQLite's WAL can absorb */
const bulky = (bytes: Buffer) => Buffer.concat([bytes, Buffer.alloc(2 * 1024 * 1024, 7)]);

describe.skipIf(unavailable !== null).each(DIALECTS)(
  `a full disk (the data folder on a 48 MB tmpfs; %s)${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  (dialect) => {
    let disk: Tmpfs;
    beforeAll(() => {
      disk = mountTmpfs(48);
    });
    // hooks run as a stack: unmounted after the app is closed and its folders removed
    afterAll(() => disk?.unmount());
    const logLines: string[] = [];
    const t = useTestApp(dialect, {
      logLines,
      prepare: (env) => {
        fs.rmSync(env.LARDER_DATA_DIR!, { recursive: true });
        env.LARDER_DATA_DIR = path.join(disk.dir, 'data');
        env.LARDER_BACKUP_DIR = path.join(disk.dir, 'backups');
      },
    });
    const admin = t.admin;
    const anna = t.user('anna');
    beforeAll(() => seedBasics(t.app, anna));

    const write = itemWrite(t, anna, (key) => ({ notes: key.padEnd(4000, '.') }));
    const health = async () => (await t.app.inject({ method: 'GET', url: '/health' })).json();
    const partialFiles = () =>
      filesUnder(disk.dir).filter(
        (f) => /\.tmp|\.partial|\/\.[^/]+$/.test(f) && !f.endsWith('-wal') && !f.endsWith('-shm'),
      );

    it('refuses writes with 507 insufficient_storage, keeps reads, leaves no partial file, and recovers once space is freed', async () => {
      const stream = startWriteStream(write);
      await sleep(1_000);
      stream.phase('during');
      const filler = fillDisk(disk.dir);
      // whatever SQLite's WAL still had room for is written; then each write is refused
      await sleep(1_500);

      const pdf = bulky(fixture('water-guide.pdf'));
      const uploaded = await upload(t.app, admin, 'big.pdf', { title: 'Big' }, pdf);
      const apk = await putApk(t.app, bulky(Buffer.from('PK\x03\x04')));
      const backup = await t.app.inject({
        method: 'POST',
        url: '/api/admin/backups',
        headers: admin.headers,
      });
      const message = await call(t.app, anna, 'POST', '/api/messages', {
        receiverId: admin.userId,
        body: 'x'.repeat(4000),
      });
      for (const res of [uploaded, apk, backup]) {
        expect([res.statusCode, res.json().code], res.body).toEqual([507, 'insufficient_storage']);
      }
      expect([507, 201]).toContain(message.status);

      // reads keep working; /health says the disk is full; the log names the folder
      const list = await call(t.app, anna, 'GET', '/api/inventory/items');
      expect(list.status).toBe(200);
      expect((await call(t.app, admin, 'GET', '/api/admin/backups')).status).toBe(200);
      expect(await health()).toMatchObject({ status: 'degraded', database: 'ok', disk: 'full' });
      expect(message.status === 201 || dialect === 'sqlite').toBe(true);
      const logged = logLines.map((l) => JSON.parse(l)).filter((l) => /disk full/.test(l.msg));
      expect(logged.length).toBeGreaterThan(0);
      expect(logged[0].msg).toContain(disk.dir);
      expect(logged.every((l) => l.level >= 50)).toBe(true);
      expect(partialFiles()).toEqual([]);

      const during = stream.results.filter((r) => r.phase === 'during');
      const refusedCount = during.filter((r) => r.status === 507).length;

      const freedAt = stream.phase('after');
      fs.rmSync(filler);
      const recoverMs = await stream.acknowledgedIn('after', freedAt);
      await sleep(500);
      const results = await stream.stop();
      expect(await health()).toMatchObject({ status: 'ok', disk: 'ok' });

      const stored = new Set<string>(
        (await call(t.app, anna, 'GET', '/api/inventory/items')).body.map(
          (i: { id: string }) => i.id,
        ),
      );
      const f = figures(`disk full (${dialect}, 48 MB tmpfs)`, results, stored, recoverMs);
      // on PostgreSQL the items are not on this disk: only files are refused
      if (dialect === 'sqlite') expect(refusedCount).toBeGreaterThan(0);
      for (const r of results.filter((r) => r.status !== 201)) {
        expect([r.status, r.code]).toEqual([507, 'insufficient_storage']);
      }
      expect(f.lost).toBe(0);
      expect(f.appliedDespiteRefusal).toBe(0);

      // the same writes succeed now, without a restart
      expect((await upload(t.app, admin, 'big.pdf', { title: 'Big' }, pdf)).statusCode).toBe(201);
      expect((await putApk(t.app, bulky(Buffer.from('PK\x03\x04')))).statusCode).toBe(200);
      const made = await t.app.inject({
        method: 'POST',
        url: '/api/admin/backups',
        headers: admin.headers,
      });
      expect(made.statusCode).toBe(201);
      expect(partialFiles()).toEqual([]);

      if (dialect !== 'sqlite') return;
      const check = new SQLite(path.join(t.config.dataDir, 'larder.db'), { readonly: true });
      try {
        expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
      } finally {
        check.close();
      }
    }, 90_000);
  },
);
