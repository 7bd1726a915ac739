/**
 * The JavaScript heap each open socket holds on the server side, against a bare `ws` server:
 *
 *   node --expose-gc --import tsx bench/socket-heap.ts [--sockets 2000]
 *
 * Both servers run in this process in turn (Larder built as the tests build it, on SQLite in a
 * temp dir; then `ws` on node:http accepting every upgrade), each given the same number of
 * sockets by a client in this process; the figure is the heap after a full GC with the sockets
 * open minus the heap after a full GC before, per socket. The client's sockets are in both
 * figures alike, so the difference between the two is what Larder keeps per socket beyond `ws`.
 * Heap after GC, unlike the RSS growth the `connect` case reads, does not depend on when the
 * collector last ran, so a few thousand sockets give a steady figure on a busy machine.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { createUser, loginAsAdmin, type Session } from '#test/helpers/app.js';
import { startTestApp } from '#test/helpers/fixtures.js';

const at = process.argv.indexOf('--sockets');
const SOCKETS = at > 0 ? Number(process.argv[at + 1]) : 2000;
const USERS = Math.ceil(SOCKETS / 1000);

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

async function measure(
  open: () => Promise<WebSocket[]>,
): Promise<{ perSocket: number; sockets: number }> {
  const before = await heapAfterGc();
  const sockets = await open();
  await new Promise((resolve) => setTimeout(resolve, 500));
  const after = await heapAfterGc();
  await closeSockets(sockets);
  return { perSocket: (after - before) / sockets.length, sockets: sockets.length };
}

async function larder() {
  const t = await startTestApp('sqlite', { extraEnv: { LARDER_SOCKETS_PER_USER: String(1000) } });
  try {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const admin = await loginAsAdmin(t.app);
    const users: Session[] = [];
    for (let i = 0; i < USERS; i++) users.push(await createUser(t.app, admin, `heap-${i}`));
    const ws = base.replace('http', 'ws');
    return await measure(() =>
      openSockets((i) => `${ws}/ws/sync?token=${users[i % USERS]!.token}`, SOCKETS),
    );
  } finally {
    await t.close();
  }
}

async function bare() {
  const server = http.createServer((_req, res) => res.end());
  const wss = new WebSocketServer({ server });
  wss.on('connection', (socket) => socket.send(JSON.stringify({ type: 'hello' })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    return await measure(() => openSockets(() => `ws://127.0.0.1:${port}/`, SOCKETS));
  } finally {
    wss.close();
    server.close();
  }
}

const kB = (bytes: number) => `${(bytes / 1000).toFixed(2)} kB`;
const l = await larder();
const b = await bare();
process.stdout.write(
  `${SOCKETS} sockets, heap after GC per socket (client included in both): ` +
    `Larder ${kB(l.perSocket)}, bare ws ${kB(b.perSocket)}, ` +
    `Larder beyond ws ${kB(l.perSocket - b.perSocket)}, ratio ${(l.perSocket / b.perSocket).toFixed(2)}\n`,
);
process.exit(0);
