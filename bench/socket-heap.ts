/**
 * The JavaScript heap each open socket holds on the server side, against a bare `ws` server:
 *
 *   node --expose-gc --import tsx bench/socket-heap.ts [--sockets 2000] [--by-kind]
 *
 * Both servers run in this process in turn (Larder built as the tests build it, on SQLite in a
 * temp dir; then `ws` on node:http accepting every upgrade), each given the same number of
 * sockets by a client in this process; the figure is the heap after a full GC with the sockets
 * open minus the heap after a full GC before, per socket. The client's sockets are in both
 * figures alike, so the difference between the two is what Larder keeps per socket beyond `ws`.
 * Heap after GC, unlike the RSS growth the `connect` case reads, does not depend on when the
 * collector last ran, so a few thousand sockets give a steady figure on a busy machine.
 *
 * With `--by-kind`, a heap snapshot before and after the sockets of each server also says what
 * the bytes are: the objects that grew, by kind (V8's node type and constructor or name), per
 * socket, Larder's growth beside bare `ws`'s, the kinds Larder adds most first.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import WebSocket, { WebSocketServer } from 'ws';
import { createUser, loginAsAdmin, type Session } from '#test/helpers/app.js';
import { startTestApp } from '#test/helpers/fixtures.js';

const at = process.argv.indexOf('--sockets');
const SOCKETS = at > 0 ? Number(process.argv[at + 1]) : 2000;
const USERS = Math.ceil(SOCKETS / 1000);
const BY_KIND = process.argv.includes('--by-kind');

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

async function heapAfterGc(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc!();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

/** Opens `count` sockets, 50 at a time; each counts once its first frame (the hello) arrived. */
async function openSockets(url: (i: number) => string, count: number): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  for (let i = 0; i < count; i += 50) {
    const batch = Array.from({ length: Math.min(50, count - i) }, (_, j) => {
      const socket = new WebSocket(url(i + j));
      sockets.push(socket);
      return new Promise<void>((resolve, reject) => {
        socket.once('message', () => resolve());
        socket.once('error', reject);
      });
    });
    await Promise.all(batch);
  }
  return sockets;
}

async function closeSockets(sockets: WebSocket[]): Promise<void> {
  await Promise.all(
    sockets.map(
      (s) =>
        new Promise<void>((resolve) => {
          s.once('close', () => resolve());
          s.close();
        }),
    ),
  );
}

/** Bytes of the heap by kind of object: V8's node type and its constructor or name. */
type Kinds = Map<string, number>;

/** A heap snapshot's bytes by kind (self sizes; strings and code by their type alone). */
function heapByKind(): Kinds {
  const file = path.join(os.tmpdir(), `socket-heap-${process.pid}-${Date.now()}.heapsnapshot`);
  v8.writeHeapSnapshot(file);
  try {
    const snapshot = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
      nodes: number[];
      strings: string[];
    };
    const fields = snapshot.snapshot.meta.node_fields;
    const types = snapshot.snapshot.meta.node_types[0];
    const [type, name, size] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
    const kinds: Kinds = new Map();
    const { nodes, strings } = snapshot;
    for (let i = 0; i < nodes.length; i += fields.length) {
      const t = types[nodes[i + type!]!]!;
      const named = t === 'object' || t === 'closure' || t === 'native';
      const kind = named ? `${t} ${strings[nodes[i + name!]!]!.slice(0, 60)}` : t;
      kinds.set(kind, (kinds.get(kind) ?? 0) + nodes[i + size!]!);
    }
    return kinds;
  } finally {
    fs.rmSync(file, { force: true });
  }
}

function grown(before: Kinds, after: Kinds, sockets: number): Kinds {
  const kinds: Kinds = new Map();
  for (const [kind, bytes] of after) kinds.set(kind, (bytes - (before.get(kind) ?? 0)) / sockets);
  return kinds;
}

async function measure(
  open: (count: number) => Promise<WebSocket[]>,
): Promise<{ perSocket: number; sockets: number; kinds: Kinds | null }> {
  // a tenth of the sockets opened and closed first: the code each server compiles on its first
  // sockets, and what it sets up once, are not the sockets' own
  await closeSockets(await open(Math.ceil(SOCKETS / 10)));
  const before = await heapAfterGc();
  const kindsBefore = BY_KIND ? heapByKind() : null;
  const sockets = await open(SOCKETS);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const after = await heapAfterGc();
  const kinds = kindsBefore && grown(kindsBefore, heapByKind(), sockets.length);
  await closeSockets(sockets);
  return { perSocket: (after - before) / sockets.length, sockets: sockets.length, kinds };
}

async function larder() {
  const t = await startTestApp('sqlite', { extraEnv: { LARDER_SOCKETS_PER_USER: String(1000) } });
  try {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const admin = await loginAsAdmin(t.app);
    const users: Session[] = [];
    for (let i = 0; i < USERS; i++) users.push(await createUser(t.app, admin, `heap-${i}`));
    const ws = base.replace('http', 'ws');
    const tokens = users.map((u) => u.token);
    const result = await measure((count) =>
      openSockets((i) => `${ws}/ws/sync?token=${tokens[i % USERS]!}`, count),
    );
    return { ...result, tokens };
  } finally {
    await t.close();
  }
}

async function bare(tokens: string[]) {
  const server = http.createServer((_req, res) => res.end());
  const wss = new WebSocketServer({ server });
  wss.on('connection', (socket) => socket.send(JSON.stringify({ type: 'hello' })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    // the same URLs as Larder's clients: the client's copy of each is in both figures alike
    return await measure((count) =>
      openSockets((i) => `ws://127.0.0.1:${port}/ws/sync?token=${tokens[i % USERS]!}`, count),
    );
  } finally {
    wss.close();
    server.close();
  }
}

const kB = (bytes: number) => `${(bytes / 1000).toFixed(2)} kB`;
const l = await larder();
const b = await bare(l.tokens);
process.stdout.write(
  `${SOCKETS} sockets, heap after GC per socket (client included in both): ` +
    `Larder ${kB(l.perSocket)}, bare ws ${kB(b.perSocket)}, ` +
    `Larder beyond ws ${kB(l.perSocket - b.perSocket)}, ratio ${(l.perSocket / b.perSocket).toFixed(2)}\n`,
);
if (l.kinds && b.kinds) {
  const rows = [...new Set([...l.kinds.keys(), ...b.kinds.keys()])]
    .map((kind) => ({ kind, larder: l.kinds!.get(kind) ?? 0, bare: b.kinds!.get(kind) ?? 0 }))
    .filter((r) => Math.abs(r.larder) >= 8 || Math.abs(r.bare) >= 8)
    .sort((x, y) => y.larder - y.bare - (x.larder - x.bare));
  process.stdout.write('bytes per socket by kind (heap snapshots): Larder, bare ws, beyond ws\n');
  for (const r of rows.slice(0, 30)) {
    const row = [r.larder, r.bare, r.larder - r.bare].map((n) => n.toFixed(0).padStart(6));
    process.stdout.write(`${row.join(' ')}  ${r.kind}\n`);
  }
}
process.exit(0);
