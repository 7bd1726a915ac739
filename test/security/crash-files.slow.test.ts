import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { http as call, useServerProcesses } from '#test/helpers/server-process.js';
import {
  HOUR_AGO,
  MB,
  multipartParts,
  pdf,
  sha256,
  slowPost,
  tempsUnder,
} from './crash-helpers.js';

/**
 * Crash safety of files: the server is SIGKILLed mid-upload and mid-analysis (backups and
 * restores: crash-backups.slow.test.ts), then restarted on the same data dir and schema. What a
 * user sees afterwards is whole: only uploads answered 201; the temp files the killed process
 * left are removed at start once older than the safe age (docs/operations.md).
 */
describe.each(DIALECTS)('crash safety of files (%s)', (dialect) => {
  const servers = useServerProcesses(dialect);

  it('removes old temp files at start and keeps fresh ones and real files', async () => {
    const dataDir = servers.env.LARDER_DATA_DIR!;
    let server = await servers.start(); // creates the folders
    await server.stop();
    const old = [
      'resources/.tmp-11111111-1111-4111-8111-111111111111',
      'staging/1/.tmp-22222222-2222-4222-8222-222222222222',
      'backups/.larder-4242-a1b2c3d4e5f6.partial',
      'version.json.4242.a1b2c3d4e5f6.tmp',
      'jwt-secret.4242.a1b2c3d4.tmp',
    ];
    const fresh = [
      'resources/.tmp-33333333-3333-4333-8333-333333333333',
      'staging/1/.tmp-44444444-4444-4444-8444-444444444444',
      'backups/.larder-4343-0123456789ab.partial',
      'version.json.4343.0123456789ab.tmp',
    ];
    // an old file that is no temp file (an operator's own) is never touched
    const kept = ['backups/notes.txt', 'resources/README'];
    for (const name of [...old, ...fresh, ...kept]) {
      fs.mkdirSync(path.dirname(path.join(dataDir, name)), { recursive: true });
      fs.writeFileSync(path.join(dataDir, name), 'x');
    }
    for (const name of [...old, ...kept]) {
      fs.utimesSync(path.join(dataDir, name), HOUR_AGO(), HOUR_AGO());
    }
    server = await servers.start();
    for (const name of old) expect(fs.existsSync(path.join(dataDir, name)), name).toBe(false);
    for (const name of [...fresh, ...kept]) {
      expect(fs.existsSync(path.join(dataDir, name)), name).toBe(true);
    }
    await server.stop();
  }, 120_000);

  it('an upload and an analysis killed mid-body leave nothing in the catalog or staging', async () => {
    const env = servers.environment();
    const dataDir = env.LARDER_DATA_DIR!;
    let server = await servers.start(env);
    const { token } = server;
    const answered = new Map<string, string>(); // guid → sha256
    for (let i = 0; i < 2; i++) {
      const data = pdf(2 * MB, `done ${i}`);
      const meta = { title: `Done ${i}`, description: '', tags: [] };
      const res = await slowPost(
        server.base,
        '/api/admin/resources',
        token,
        multipartParts(data, `done-${i}.pdf`, meta),
        0,
      ).done;
      expect(res).not.toBe('killed');
      if (res === 'killed') return;
      expect(res.status).toBe(201);
      answered.set(res.body.guid, sha256(data));
    }

    const meta = { title: 'Big', description: '', tags: [] };
    const upload = slowPost(
      server.base,
      '/api/admin/resources',
      token,
      multipartParts(pdf(20 * MB, 'big'), 'big.pdf', meta),
      40,
    );
    const analysis = slowPost(
      server.base,
      '/api/admin/resources/analyze',
      token,
      multipartParts(pdf(20 * MB, 'staged'), 'staged.pdf'),
      40,
    );
    // the kill lands mid-body: once the server writes both bodies to temp files, and while
    // neither body is whole
    const inFlight = () => ({
      upload: tempsUnder(path.join(dataDir, 'resources')),
      analysis: tempsUnder(path.join(dataDir, 'staging')),
    });
    await vi.waitFor(
      () => {
        expect(upload.sent()).toBeGreaterThanOrEqual(5 * MB);
        expect(analysis.sent()).toBeGreaterThanOrEqual(5 * MB);
        expect(inFlight().upload).not.toEqual([]);
        expect(inFlight().analysis).not.toEqual([]);
      },
      { timeout: 60_000, interval: 20 },
    );
    const before = inFlight();
    server.child.kill('SIGKILL');
    expect(await upload.done).toBe('killed');
    expect(await analysis.done).toBe('killed');
    await server.stop();
    // what the killed process was writing is still there, unfinished
    expect(inFlight()).toEqual(before);

    // past the safe age, as a restart after any real downtime would find them
    for (const file of tempsUnder(dataDir)) fs.utimesSync(file, HOUR_AGO(), HOUR_AGO());
    server = await servers.start(env);
    const again = server.token;
    const list = await call(server.base, 'GET', '/api/resources', { token: again });
    expect(list.status).toBe(200);
    expect(list.body.map((r: { guid: string }) => r.guid).sort()).toEqual(
      [...answered.keys()].sort(),
    );
    for (const [guid, sum] of answered) {
      const res = await fetch(`${server.base}/api/resources/${guid}/download`, {
        headers: { authorization: `Bearer ${again}` },
      });
      expect(res.status).toBe(200);
      expect(sha256(Buffer.from(await res.arrayBuffer()))).toBe(sum);
    }
    expect(tempsUnder(dataDir)).toEqual([]);
    expect(fs.readdirSync(path.join(dataDir, 'resources'))).toHaveLength(answered.size);
    const staged = fs
      .readdirSync(path.join(dataDir, 'staging'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile());
    expect(staged).toEqual([]);
    await server.stop();
  }, 180_000);
});
