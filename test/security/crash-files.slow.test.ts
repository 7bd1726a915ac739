import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  DIALECTS,
  destroyTestEnvironment,
  testEnvironment,
} from '../helpers/app.js';
import { http as call, startServer, type ServerProcess } from '../helpers/server-process.js';
import { runCli } from '../cli/run-cli.js';
import { spawn } from 'node:child_process';

/**
 * Crash safety of files (issue 13): the server is SIGKILLed mid-upload, mid-analysis and
 * mid-backup, then restarted on the same data dir and schema. What a user sees afterwards is
 * whole: only uploads answered 201, only finished backups; the temp files the killed process left
 * are removed at start once older than the safe age (docs/operations.md).
 */
const MB = 1024 * 1024;
const HOUR_AGO = () => new Date(Date.now() - 3600_000);

async function login(base: string): Promise<string> {
  const res = await call(base, 'POST', '/api/auth/login', {
    body: { username: 'admin', password: ADMIN_PASSWORD },
  });
  expect(res.status).toBe(200);
  return res.body.accessToken as string;
}

function pdf(size: number, seed: string): Buffer {
  const data = Buffer.alloc(size, 0x20);
  data.write(`%PDF-1.4\n% ${seed}\n`);
  return data;
}

const sha256 = (data: Buffer) => crypto.createHash('sha256').update(data).digest('hex');

function multipartParts(file: Buffer, filename: string, metadata?: object) {
  const boundary = `----larder${crypto.randomBytes(8).toString('hex')}`;
  let head = '';
  if (metadata) {
    head += `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n`;
    head += `${JSON.stringify(metadata)}\r\n`;
  }
  head += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n`;
  head += 'Content-Type: application/octet-stream\r\n\r\n';
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    head: Buffer.from(head),
    file,
    tail: Buffer.from(`\r\n--${boundary}--\r\n`),
  };
}

/** Posts a multipart body in 256 kB pieces, one every `pauseMs`; resolves with the status. */
function slowPost(
  base: string,
  url: string,
  token: string,
  body: ReturnType<typeof multipartParts>,
  pauseMs: number,
): { done: Promise<{ status: number; body: any } | 'killed'>; sent: () => number } {
  let sent = 0;
  const whole = Buffer.concat([body.head, body.file, body.tail]);
  const done = new Promise<{ status: number; body: any } | 'killed'>((resolve) => {
    const req = http.request(`${base}${url}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': body.contentType,
        'content-length': String(whole.length),
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () =>
        resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null }),
      );
      res.on('error', () => resolve('killed'));
    });
    req.on('error', () => resolve('killed'));
    const step = async () => {
      while (sent < whole.length) {
        const piece = whole.subarray(sent, sent + 256 * 1024);
        sent += piece.length;
        if (!req.write(piece)) await new Promise((r) => req.once('drain', r));
        await new Promise((r) => setTimeout(r, pauseMs));
        if (req.destroyed) return;
      }
      req.end();
    };
    void step();
  });
  return { done, sent: () => sent };
}

const tempsUnder = (dir: string): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile() && /^\.tmp-|\.partial$|\.tmp$/.test(e.name))
        .map((e) => path.join(e.parentPath, e.name))
    : [];

describe.each(DIALECTS)('crash safety of files (%s)', (dialect) => {
  const envs: Record<string, string>[] = [];
  let server: ServerProcess | null = null;
  afterAll(async () => {
    await server?.stop();
    for (const env of envs) await destroyTestEnvironment(env);
  });

  it('removes old temp files at start and keeps fresh ones and real files', async () => {
    const env = testEnvironment(dialect);
    envs.push(env);
    const dataDir = env.LARDER_DATA_DIR!;
    server = await startServer(env); // creates the folders
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
    server = await startServer(env);
    for (const name of old) expect(fs.existsSync(path.join(dataDir, name)), name).toBe(false);
    for (const name of [...fresh, ...kept]) {
      expect(fs.existsSync(path.join(dataDir, name)), name).toBe(true);
    }
    await server.stop();
    server = null;
  }, 120_000);

  it('an upload and an analysis killed mid-body leave nothing in the catalog or staging', async () => {
    const env = testEnvironment(dialect);
    envs.push(env);
    const dataDir = env.LARDER_DATA_DIR!;
    server = await startServer(env);
    const token = await login(server.base);
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
    while (upload.sent() < 5 * MB || analysis.sent() < 5 * MB) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 300));
    const before = tempsUnder(dataDir);
    expect(before.length).toBeGreaterThanOrEqual(1); // the kill lands mid-body
    server.child.kill('SIGKILL');
    expect(await upload.done).toBe('killed');
    expect(await analysis.done).toBe('killed');
    await server.stop();

    // past the safe age, as a restart after any real downtime would find them
    for (const file of tempsUnder(dataDir)) fs.utimesSync(file, HOUR_AGO(), HOUR_AGO());
    server = await startServer(env);
    const again = await login(server.base);
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
    process.stdout.write(
      `crash upload (${dialect}): ${before.length} temp file(s) at the kill, removed at restart\n`,
    );
    await server.stop();
    server = null;
  }, 180_000);

  it('a backup killed mid-write is never listed and its temp file is removed', async () => {
    const env = testEnvironment(dialect);
    envs.push(env);
    const backupDir = env.LARDER_BACKUP_DIR!;
    server = await startServer(env);
    const token = await login(server.base);
    const put = await putItems(server.base, token, 3000);
    expect(put.status).toBe(200);
    let answered = 0;
    let stop = false;
    const base = server.base;
    const loop = (async () => {
      while (!stop) {
        try {
          const res = await call(base, 'POST', '/api/admin/backups', { token });
          if (res.status === 201) answered++;
        } catch {
          return; // the kill
        }
      }
    })();
    await new Promise((r) => setTimeout(r, 2500));
    const partials = tempsUnder(backupDir).length;
    server.child.kill('SIGKILL');
    stop = true;
    await Promise.all([loop, server.stop()]);
    expect(answered).toBeGreaterThan(0);

    for (const file of tempsUnder(backupDir)) fs.utimesSync(file, HOUR_AGO(), HOUR_AGO());
    server = await startServer(env);
    const list = await call(server.base, 'GET', '/api/admin/backups', {
      token: await login(server.base),
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
    process.stdout.write(
      `crash backup (${dialect}): ${answered} backups answered 201, ${partials} temp file(s) seen just before the kill, ${list.body.length} listed after restart, all whole\n`,
    );
    await server.stop();
    server = null;
  }, 180_000);

  it('a restore killed mid-way leaves the database wholly empty or wholly restored', async () => {
    const source = testEnvironment(dialect);
    envs.push(source);
    server = await startServer(source);
    const token = await login(server.base);
    expect((await putItems(server.base, token, 3000)).status).toBe(200);
    const backup = await call(server.base, 'POST', '/api/admin/backups', { token });
    expect(backup.status).toBe(201);
    await server.stop();
    server = null;
    const dump = path.join(source.LARDER_BACKUP_DIR!, backup.body.name as string);

    // how long a whole restore takes here, to kill the next one about 80 % of the way
    const reference = testEnvironment(dialect);
    envs.push(reference);
    const started = Date.now();
    const whole = await runCli(reference, ['restore', dump]);
    expect(whole.code, whole.stderr).toBe(0);
    const restoreMs = Date.now() - started;

    // a later restore can be faster than the first (tsx's and the disk's caches are warm): when
    // one finishes before its kill, the next attempt, on a fresh database, is killed sooner
    let target = testEnvironment(dialect);
    let killedAfter = Math.round(restoreMs * 0.8);
    let code: string | number | null = null;
    for (let attempt = 0; attempt < 4; attempt++) {
      if (attempt > 0) {
        target = testEnvironment(dialect);
        killedAfter = Math.round(killedAfter / 2);
      }
      envs.push(target);
      code = await killedRestore(target, dump, killedAfter);
      if (code === 'SIGKILL') break;
    }
    expect(code).toBe('SIGKILL');

    let found: string;
    const second = await runCli(target, ['restore', dump]);
    if (second.code === 0) {
      found = 'wholly empty';
    } else {
      expect(second.stderr).toMatch(/the database is not empty/);
      found = 'wholly restored';
      expect(await itemCount(target)).toBe(3000);
      const forced = await runCli(target, ['restore', dump, '--force']);
      expect(forced.code, forced.stderr).toBe(0);
    }
    expect(await itemCount(target)).toBe(3000);
    process.stdout.write(
      `crash restore (${dialect}): whole restore ${restoreMs} ms, killed after ${killedAfter} ms, found ${found}; the second attempt worked\n`,
    );
  }, 240_000);

  async function itemCount(env: Record<string, string>): Promise<number> {
    server = await startServer(env);
    const inventory = await call(server.base, 'GET', '/api/inventory', {
      token: await login(server.base),
    });
    await server.stop();
    server = null;
    return (inventory.body.items as unknown[]).length;
  }
});

function putItems(base: string, token: string, count: number) {
  const items = Array.from({ length: count }, (_, i) => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    name: `item ${i} ${'x'.repeat(40)}`,
    categoryId: 1,
    quantity: i,
    unit: 'kg',
    unitPrice: 1,
    locationId: 1,
  }));
  return call(base, 'PUT', '/api/inventory', {
    token,
    body: {
      items,
      categories: [{ id: 1, name: 'c' }],
      locations: [{ id: 1, name: 'l' }],
      settings: {},
    },
  });
}

/** `larder restore <file>` SIGKILLed after `afterMs`; resolves with the signal (or exit code). */
function killedRestore(env: Record<string, string>, file: string, afterMs: number) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('LARDER_')),
  );
  const bin = path.resolve(import.meta.dirname, '../../bin/larder.mjs');
  const child = spawn(process.execPath, [bin, 'restore', file], {
    env: { ...clean, ...env },
    stdio: 'ignore',
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), afterMs);
  return new Promise<string | number | null>((resolve) => {
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(signal ?? code);
    });
  });
}
