import type { FastifyInstance } from 'fastify';
import { afterEach } from 'vitest';
import WebSocket from 'ws';
import { frameProblem } from './contract.js';

export interface Frame {
  type: string;
  [key: string]: any;
}

export interface TestSocket {
  ws: WebSocket;
  /** every frame received so far, in order */
  frames: Frame[];
  /** waits for the next frame of that type not yet taken (any type when omitted) */
  next(type?: string, timeoutMs?: number): Promise<Frame>;
  send(frame: unknown): void;
  /**
   * Sends a ping and waits for its pong (which `frames` leaves out): every frame the server sent
   * before it read the ping has then arrived, so an absence can be asserted. A frame the server
   * sends only after asynchronous work (a database read, an event through PostgreSQL) may still
   * be on its way: first wait for a later frame that comes the same way.
   */
  barrier(timeoutMs?: number): Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
}

/** The base ws:// address of a listening app (listens on a random port when it does not yet). */
export async function wsBase(app: FastifyInstance): Promise<string> {
  if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('app is not listening on TCP');
  return `ws://127.0.0.1:${address.port}`;
}

/** Opens /ws/sync with the token in the header (or in the query when asked) and waits for it to open. */
export async function openSocket(
  app: FastifyInstance,
  token: string,
  options: { via?: 'header' | 'query' } = {},
): Promise<TestSocket> {
  const base = await wsBase(app);
  const ws =
    options.via === 'query'
      ? new WebSocket(`${base}/ws/sync?token=${encodeURIComponent(token)}`)
      : new WebSocket(`${base}/ws/sync`, { headers: { authorization: `Bearer ${token}` } });
  const frames: Frame[] = [];
  let taken = 0;
  const waiters: (() => void)[] = [];
  const barriers: (() => void)[] = [];
  const invalid: string[] = [];
  ws.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as Frame;
    const problem = frameProblem(frame);
    if (problem) invalid.push(problem);
    if (frame.type === 'pong' && barriers.length > 0) return barriers.shift()!();
    frames.push(frame);
    for (const w of waiters.splice(0)) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) =>
      reject(new Error(`upgrade refused: ${res.statusCode}`)),
    );
  });

  const seen = new Set<number>();
  return {
    ws,
    frames,
    closed,
    send: (frame) => ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame)),
    barrier(timeoutMs = 3000) {
      return new Promise<void>((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          barriers.splice(barriers.indexOf(done), 1);
          reject(new Error(`no pong within ${timeoutMs} ms`));
        }, timeoutMs);
        barriers.push(done);
        ws.send(JSON.stringify({ type: 'ping' }));
      });
    },
    async next(type, timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (invalid.length > 0) throw new Error(invalid.join('\n'));
        for (let i = type ? 0 : taken; i < frames.length; i++) {
          if (seen.has(i)) continue;
          if (!type || frames[i]!.type === type) {
            seen.add(i);
            if (!type) taken = i + 1;
            return frames[i]!;
          }
        }
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(
            `no ${type ?? 'frame'} within ${timeoutMs} ms; got ${JSON.stringify(frames)}`,
          );
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    async close() {
      if (ws.readyState !== ws.CLOSED) {
        ws.close();
        await closed;
      }
      if (invalid.length > 0) throw new Error(invalid.join('\n'));
    },
  };
}

/** Resolves with the HTTP status when the upgrade is refused. */
export async function refusedUpgradeStatus(
  app: FastifyInstance,
  path: string,
  headers: Record<string, string> = {},
) {
  const base = await wsBase(app);
  return new Promise<number>((resolve, reject) => {
    const ws = new WebSocket(`${base}${path}`, { headers });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('open', () => {
      ws.close();
      reject(new Error('upgrade was accepted'));
    });
    ws.once('error', () => {});
  });
}

/**
 * Waits for the `inventoryUpdated` frame that reaches `revision` (earlier writes' frames may come
 * first, as another instance's events do) and returns it.
 */
export async function nextRevision(
  socket: Pick<TestSocket, 'next'>,
  revision: number,
): Promise<Frame> {
  let update = await socket.next('inventoryUpdated');
  while (update.revision < revision) update = await socket.next('inventoryUpdated');
  return update;
}

/** Polls until the condition holds (events crossing instances arrive a moment later). */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 2000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Opens sockets on `t.app` that have had their hello, and closes them all after each test.
 * Call it in a describe body.
 */
export function useSockets(t: { readonly app: FastifyInstance }) {
  const sockets: TestSocket[] = [];
  afterEach(async () => {
    await Promise.all(sockets.splice(0).map((s) => s.close()));
  });
  return async (session: { token: string }) => {
    const socket = await openSocket(t.app, session.token);
    sockets.push(socket);
    await socket.next('hello');
    return socket;
  };
}
