import crypto from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { putInventory } from '#test/helpers/server-process.js';

/** What the crash tests of files share: bodies sent slowly, temp files, a killed restore. */
export const MB = 1024 * 1024;
export const HOUR_AGO = () => new Date(Date.now() - 3600_000);

export function pdf(size: number, seed: string): Buffer {
  const data = Buffer.alloc(size, 0x20);
  data.write(`%PDF-1.4\n% ${seed}\n`);
  return data;
}

export const sha256 = (data: Buffer) => crypto.createHash('sha256').update(data).digest('hex');

export function multipartParts(file: Buffer, filename: string, metadata?: object) {
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
export function slowPost(
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
        await new Promise((r) => setTimeout(r, pauseMs)); // the pace of a slow client
        if (req.destroyed) return;
      }
      req.end();
    };
    void step();
  });
  return { done, sent: () => sent };
}

export const tempsUnder = (dir: string): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile() && /^\.tmp-|\.partial$|\.tmp$/.test(e.name))
        .map((e) => path.join(e.parentPath, e.name))
    : [];

/** `count` items (UUIDs by number) in category 1 and location 1, item i holding i kg. */
export const numberedItems = (count: number, name: (i: number) => string) =>
  Array.from({ length: count }, (_, i) => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    name: name(i),
    categoryId: 1,
    quantity: i,
    unit: 'kg',
    unitPrice: 1,
    locationId: 1,
  }));

/** A whole inventory of `count` items with long names: enough rows for a slow backup. */
export const putItems = (base: string, token: string, count: number) =>
  putInventory(
    base,
    token,
    numberedItems(count, (i) => `item ${i} ${'x'.repeat(40)}`),
    {
      category: 'c',
      location: 'l',
    },
  );

/**
 * `larder restore <file>` SIGKILLed as soon as it is inside the restore proper: all `migrations`
 * applied (the CLI migrates first) and a write transaction open on the database, which after the
 * migrations only the restore takes. Resolves with the signal (or exit code) and whether that
 * phase was seen before the kill; a restore that ends before it is seen is not killed.
 */
export async function killedRestore(env: Record<string, string>, file: string, migrations: number) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('LARDER_')),
  );
  const bin = path.resolve(import.meta.dirname, '../../bin/larder.mjs');
  const child = spawn(process.execPath, [bin, 'restore', file], {
    env: { ...clean, ...env },
    stdio: 'ignore',
  });
  const exited = new Promise<string | number | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code)),
  );
  let running = true;
  void exited.then(() => (running = false));
  let restoring = false;
  while (running && !restoring) {
    const phase = await restorePhase(env);
    restoring = phase.migrations === migrations && phase.writing;
    if (!restoring) await new Promise((r) => setTimeout(r, 5)); // a poll, not a wait for time
  }
  if (restoring && running) child.kill('SIGKILL');
  return { code: await exited, restoring };
}

/**
 * Where a process writing into the environment's database is: how many migrations are applied
 * (0 before there is a schema), and whether another connection holds a write transaction open.
 * Read without waiting on any lock.
 */
export async function restorePhase(env: Record<string, string>) {
  try {
    if (env.LARDER_DATABASE_URL) {
      const client = new pg.Client({ connectionString: env.LARDER_DATABASE_URL });
      await client.connect();
      try {
        const schema = env.LARDER_DATABASE_SCHEMA!;
        const applied = await client.query(
          `select count(*)::int as n from "${schema}".kysely_migration`,
        );
        const locks = await client.query(
          `select count(*)::int as n from pg_locks l
             join pg_class c on c.oid = l.relation
             join pg_namespace ns on ns.oid = c.relnamespace
            where ns.nspname = $1 and l.mode = 'RowExclusiveLock' and l.pid <> pg_backend_pid()`,
          [schema],
        );
        return { migrations: applied.rows[0].n as number, writing: locks.rows[0].n > 0 };
      } finally {
        await client.end();
      }
    }
    const file = path.join(env.LARDER_DATA_DIR!, 'larder.db');
    if (!fs.existsSync(file)) return { migrations: 0, writing: false };
    const db = new SQLite(file, { timeout: 0 });
    try {
      const row = db.prepare('select count(*) as n from kysely_migration').get() as { n: number };
      let writing = false;
      try {
        db.exec('BEGIN IMMEDIATE'); // busy while another connection writes
        db.exec('ROLLBACK');
      } catch {
        writing = true;
      }
      return { migrations: row.n, writing };
    } finally {
      db.close();
    }
  } catch {
    return { migrations: 0, writing: false }; // no schema yet
  }
}
