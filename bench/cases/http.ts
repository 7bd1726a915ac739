import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { WRITER_ITEMS, tokenTable, type Standard } from '#bench/fixtures/standard.js';
import { startBaseline } from '#bench/lib/baseline.js';
import { throughput, type Load, type Throughput } from '#bench/lib/cannon.js';
import { copyDatabase } from '#bench/lib/copy.js';
import { expect } from '#bench/lib/http.js';
import type { Options } from '#bench/lib/options.js';
import { tempDir } from '#bench/lib/processes.js';
import { num, ratio, type Row } from '#bench/lib/report.js';
import { itemId } from '#bench/lib/seed.js';

const kB = (bytes: number) => `${num(bytes / 1000)} kB`;
const cpu = (t: Throughput) =>
  t.cpuUsPerRequest === undefined ? '' : `, CPU ${num(t.cpuUsPerRequest)} µs/req`;
const rate = (t: Throughput) =>
  `${num(t.rps)} req/s (p99 ${num(t.p99)} ms${cpu(t)}${t.failures ? `, **${t.failures} failed: ${t.failureKinds}**` : ''})`;

/** Measures Larder, then the baseline with the same load; returns the table row. */
async function compare(
  o: Options,
  name: string,
  larderServer: { base: string; child: ChildProcess },
  load: Load,
  bare: {
    label: string;
    start: () => Promise<{ base: string; child: ChildProcess; stop(): Promise<void> }>;
  },
  target: { text: string; ratio: number },
): Promise<Row> {
  const timing = { seconds: o.seconds, warmupSeconds: o.warmupSeconds };
  const larder = await throughput(larderServer.base, load, {
    ...timing,
    pid: larderServer.child.pid,
  });
  const server = await bare.start();
  let baseline: Throughput;
  try {
    baseline = await throughput(server.base, load, { ...timing, pid: server.child.pid });
  } finally {
    await server.stop();
  }
  const valid = larder.failures === 0 && baseline.failures === 0;
  return {
    case: name,
    larder: rate(larder),
    baseline: `${bare.label}: ${rate(baseline)}`,
    ratio: ratio(larder.rps, baseline.rps),
    target: target.text,
    met: valid ? larder.rps / baseline.rps >= target.ratio : false,
  };
}

/** The snapshot the reader gets, as bytes (and its gzip) for the bare servers to send. */
async function snapshotBytes(std: Standard) {
  const { reader, larder } = std;
  const plain = await expect(larder.base, 200, { path: '/api/inventory', token: reader.token });
  const file = path.join(tempDir('snapshot'), 'inventory.json');
  fs.writeFileSync(file, plain.body);
  return { file, bytes: plain.body, contentType: String(plain.headers['content-type']) };
}

export async function inventoryGet(o: Options, std: Standard): Promise<Row[]> {
  const { file, bytes, contentType } = await snapshotBytes(std);
  const load: Load = {
    connections: 32,
    path: '/api/inventory',
    headers: { authorization: `Bearer ${std.reader.token}` },
  };
  const row = await compare(
    o,
    `authenticated \`GET /api/inventory\`, 1,000 items (${kB(bytes.length)}), 32 connections`,
    std.larder,
    load,
    {
      label: 'bare node:http sending the identical bytes from memory',
      start: () => startBaseline('bare-http.mjs', { mode: 'bytes', bodyFile: file, contentType }),
    },
    { text: '≥ 0.5', ratio: 0.5 },
  );
  return [row];
}

export async function inventoryGetGzip(o: Options, std: Standard): Promise<Row[]> {
  const { file, bytes } = await snapshotBytes(std);
  const headers = { authorization: `Bearer ${std.reader.token}`, 'accept-encoding': 'gzip' };
  const zipped = await expect(std.larder.base, 200, { path: '/api/inventory', headers });
  if (zipped.headers['content-encoding'] !== 'gzip') {
    throw new Error('Larder did not gzip GET /api/inventory for Accept-Encoding: gzip');
  }
  const load: Load = { connections: 32, path: '/api/inventory', headers };
  const row = await compare(
    o,
    `same with \`Accept-Encoding: gzip\` (${kB(zipped.body.length)}; bare: ${kB(zlib.gzipSync(bytes).length)})`,
    std.larder,
    load,
    {
      label: 'bare server gzipping each response',
      start: () => startBaseline('bare-http.mjs', { mode: 'gzip', bodyFile: file }),
    },
    { text: '≥ 1.0 (cache the compressed bytes)', ratio: 1 },
  );
  return [row];
}

/** PATCHes that each change a quantity, round-robin over the writers and their items. */
function patchLoad(std: Standard): Load {
  const writers = std.writers;
  let write = 0; // one sequence across warm-up, measurement and baseline: every write changes
  return {
    connections: 32,
    method: 'PATCH',
    path: '/',
    headers: { 'content-type': 'application/json' },
    vary: () => {
      const n = write++;
      const writer = writers[n % writers.length]!;
      const item = itemId(Math.floor(n / writers.length) % WRITER_ITEMS);
      return {
        path: `/api/inventory/items/${item}`,
        body: JSON.stringify({ quantity: 1000 + n }),
        headers: { authorization: `Bearer ${writer.token}` },
      };
    },
  };
}

/** Messages from each writer to the next. */
function messageLoad(std: Standard): Load {
  const writers = std.writers;
  return {
    connections: 16,
    method: 'POST',
    path: '/api/messages',
    headers: { 'content-type': 'application/json' },
    vary: (n) => {
      const sender = writers[n % writers.length]!;
      const receiver = writers[(n + 1) % writers.length]!;
      return {
        body: JSON.stringify({ receiverId: receiver.userId, body: `bench message ${n}` }),
        headers: { authorization: `Bearer ${sender.token}` },
      };
    },
  };
}

/**
 * The bare write servers' database and the target: on SQLite without the sync Larder does for
 * durability (WAL, `synchronous=NORMAL`), so the ratio shows what durable commits and the rest of
 * Larder cost together (≥ 0.5); on PostgreSQL a pg pool with the server's own settings (≥ 0.4).
 */
async function bareWrites(std: Standard) {
  const database = await copyDatabase(std.store);
  return database.dialect === 'sqlite'
    ? {
        database: { ...database, synchronous: 'NORMAL' },
        what: 'better-sqlite3 (WAL, `synchronous=NORMAL`: no sync)',
        target: { text: '≥ 0.5', ratio: 0.5 },
      }
    : { database, what: 'pg', target: { text: '≥ 0.4', ratio: 0.4 } };
}

export async function patch(o: Options, std: Standard): Promise<Row[]> {
  const { database, what, target } = await bareWrites(std);
  const row = await compare(
    o,
    `\`PATCH /api/inventory/items/{id}\`, 32 connections, ${std.writers.length} inventories`,
    std.larder,
    patchLoad(std),
    {
      label: `bare node:http + JSON parse + the same one-row UPDATE with ${what}`,
      start: () =>
        startBaseline('bare-http.mjs', {
          mode: 'patch',
          ...database,
          tokens: tokenTable(std.writers),
        }),
    },
    target,
  );
  return [row];
}

export async function messages(o: Options, std: Standard): Promise<Row[]> {
  const writers = std.writers;
  const { database, what, target } = await bareWrites(std);
  const row = await compare(
    o,
    '`POST /api/messages`, 16 connections',
    std.larder,
    messageLoad(std),
    {
      label: `bare node:http + JSON parse + one INSERT with ${what}`,
      start: () =>
        startBaseline('bare-http.mjs', {
          mode: 'message',
          ...database,
          tokens: tokenTable(writers),
        }),
    },
    target,
  );
  return [row];
}

/**
 * What a durable commit costs on SQLite: the bare PATCH and message servers with
 * `synchronous=FULL` (Larder's setting: the WAL is synced at every commit) against the same
 * servers with `synchronous=NORMAL` (synced at checkpoints only), with the same loads.
 */
export async function commitSync(o: Options, std: Standard): Promise<Row[]> {
  const database = await copyDatabase(std.store);
  if (database.dialect !== 'sqlite') return [];
  const timing = { seconds: o.seconds, warmupSeconds: o.warmupSeconds };
  const rows: Row[] = [];
  for (const [mode, load, what] of [
    ['patch', patchLoad(std), 'one-row UPDATE (PATCH), 32 connections'],
    ['message', messageLoad(std), 'one INSERT (message), 16 connections'],
  ] as const) {
    const measure = async (synchronous: string) => {
      const server = await startBaseline('bare-http.mjs', {
        mode,
        ...database,
        synchronous,
        tokens: tokenTable(std.writers),
      });
      try {
        return await throughput(server.base, load, timing);
      } finally {
        await server.stop();
      }
    };
    const normal = await measure('NORMAL');
    const full = await measure('FULL');
    rows.push({
      case: `bare ${what}: \`synchronous=FULL\` against \`NORMAL\``,
      larder: `FULL: ${rate(full)}`,
      baseline: `NORMAL: ${rate(normal)}`,
      ratio: ratio(full.rps, normal.rps),
      target: 'measured, not judged',
      met: null,
    });
  }
  return rows;
}
