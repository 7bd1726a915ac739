import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimInFolder, publish, backupKey } from '#src/backups/backup-files.js';
import { createS3Storage } from '#src/storage/s3.storage.js';
import type { Storage } from '#src/storage/storage.js';
import { DIALECTS, destroyTestEnvironment, testEnvironment } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { startS3Peer, type S3Peer } from '#test/storage/s3-peer.js';
import { postBackup } from './helpers.js';

const readAll = async (storage: Storage, key: string) => {
  const chunks: Buffer[] = [];
  for await (const chunk of await storage.get(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

// In a bucket "is the name free?" and "upload" are two requests: writers that publish in the
// same second must not both take the first free name (the later upload would replace the other).
describe('backups published into a bucket at the same moment', () => {
  let peer: S3Peer;
  let storage: Storage;
  let dir: string;
  beforeAll(async () => {
    peer = await startS3Peer();
    storage = createS3Storage(peer.settings);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-publish-'));
  });
  afterAll(async () => {
    storage.close();
    await peer.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('each writer gets a name of its own and every dump is kept whole', async () => {
    const at = Date.UTC(2026, 10, 28, 21, 0, 0);
    const dumps = [0, 1, 2, 3].map((i) => Buffer.from(`-- dump ${i}\n`.repeat(1000 * (i + 1))));
    const partials = dumps.map((dump, i) => {
      const file = path.join(dir, `.larder-test-${i}.partial`);
      fs.writeFileSync(file, dump);
      return file;
    });
    // all four look the name up before any of them has uploaded
    const names = await Promise.all(
      partials.map((p) => publish(storage, p, at, claimInFolder(dir))),
    );
    expect([...names].sort()).toEqual([
      'larder-20261128-210000-2.sql.gz',
      'larder-20261128-210000-3.sql.gz',
      'larder-20261128-210000-4.sql.gz',
      'larder-20261128-210000.sql.gz',
    ]);
    for (const [i, name] of names.entries()) {
      expect((await readAll(storage, backupKey(name))).equals(dumps[i]!)).toBe(true);
    }
    expect(fs.readdirSync(dir)).toEqual([]); // the partials went up, the claims were let go
  });

  it('a name whose claim is held elsewhere is skipped', async () => {
    const at = Date.UTC(2026, 10, 28, 22, 0, 0);
    const file = path.join(dir, '.larder-held.partial');
    fs.writeFileSync(file, 'dump');
    const held = await claimInFolder(dir)('larder-20261128-220000.sql.gz', () =>
      publish(storage, file, at, claimInFolder(dir)),
    );
    expect(held).toBe('larder-20261128-220000-2.sql.gz');
  });
});

// Black box per dialect: two instances on one database and one bucket, each asked for three
// backups in the same second (a frozen clock): six names, six complete dumps. On PostgreSQL the
// instances have data dirs of their own (as on two hosts); on SQLite they share one (the server
// and the CLI on one host).
describe.each(DIALECTS)('two instances backing up into one bucket at once (%s)', (dialect) => {
  let peer: S3Peer;
  let env: Record<string, string>;
  let envB: Record<string, string>;
  const frozen = Date.now();
  const clock = { now: () => frozen, advance: () => {} };
  beforeAll(async () => {
    peer = await startS3Peer();
    env = { ...testEnvironment(dialect), ...peer.env };
    envB =
      dialect === 'postgres'
        ? { ...env, LARDER_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'larder-test-')) }
        : env;
  });
  // after hooks run in reverse: this one once both apps are closed
  afterAll(async () => {
    await destroyTestEnvironment(env);
    if (envB !== env) fs.rmSync(envB.LARDER_DATA_DIR!, { recursive: true, force: true });
    await peer.close();
  });
  const a = useTestApp(dialect, { env: () => env, clock });
  const b = useTestApp(dialect, { env: () => envB, clock });

  it('keeps every backup under a name of its own', async () => {
    const made = await Promise.all(
      [a, a, a, b, b, b].map(async (t) => {
        const res = await postBackup(t.app, t.admin);
        expect(res.statusCode, res.body).toBe(201);
        return res.json() as { name: string; sizeBytes: number };
      }),
    );
    expect(new Set(made.map((m) => m.name)).size).toBe(6);
    const listed = await b.app.inject({ url: '/api/admin/backups', headers: b.admin.headers });
    expect(listed.json()).toHaveLength(6);
    for (const { name, sizeBytes } of made) {
      const res = await a.app.inject({
        url: `/api/admin/backups/${name}`,
        headers: a.admin.headers,
      });
      expect(res.rawPayload.length).toBe(sizeBytes);
      expect(zlib.gunzipSync(res.rawPayload).toString('utf8')).toMatch(
        /-- end of backup: \d+ rows\n$/,
      );
    }
  });
});
