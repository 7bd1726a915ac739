import WebSocket from 'ws';
import { pool } from './http.js';

/**
 * Client sockets spread over 127.0.0.2 … 127.0.0.(1 + SOURCE_ADDRESSES) as source addresses: the
 * kernel picks ephemeral ports per source address, so 10,000 sockets (and those of earlier runs
 * still in TIME_WAIT) never exhaust one address's port range. All of 127.0.0.0/8 is loopback.
 */
const SOURCE_ADDRESSES = 50;
const OPEN_TIMEOUT_MS = 60_000;

export interface ClientSocket {
  ws: WebSocket;
  /** inventoryUpdated frames, in arrival order */
  updates: { revision: number; at: number }[];
}

const sourceAddress = (i: number) => `127.0.0.${2 + (i % SOURCE_ADDRESSES)}`;

/**
 * Opens a socket from source address `i` with the token in the header. `hello` resolves on the
 * server's `hello` frame (fails on a refused upgrade, an error, or no hello in `timeoutMs`, and
 * the socket is terminated); every other frame goes to `onFrame`, before and after it.
 */
export function openUntilHello(
  url: string,
  token: string,
  i: number,
  timeoutMs: number,
  onFrame: (frame: any) => void,
): { ws: WebSocket; hello: Promise<void> } {
  const ws = new WebSocket(url, {
    headers: { authorization: `Bearer ${token}` },
    localAddress: sourceAddress(i),
  });
  const hello = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => fail(new Error(`no hello within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    const fail = (err: Error) => {
      clearTimeout(timer);
      ws.terminate();
      reject(err);
    };
    ws.on('message', (data) => {
      const frame = JSON.parse(data.toString());
      if (frame.type === 'hello') {
        clearTimeout(timer);
        resolve();
      } else onFrame(frame);
    });
    ws.once('error', fail);
    ws.once('unexpected-response', (_req, res) =>
      fail(new Error(`upgrade refused: ${res.statusCode}`)),
    );
  });
  return { ws, hello };
}

/** Opens one socket and resolves on its first frame (Larder's `hello`; the bare server's too). */
async function open(url: string, token: string, i: number): Promise<ClientSocket> {
  const updates: ClientSocket['updates'] = [];
  const { ws, hello } = openUntilHello(url, token, i, OPEN_TIMEOUT_MS, (frame) => {
    if (frame.type === 'inventoryUpdated') {
      updates.push({ revision: frame.revision, at: performance.now() });
    }
  });
  await hello;
  return { ws, updates };
}

/** Opens a socket per token, `concurrency` attempts in flight; resolves when every one has its hello. */
export async function openSockets(base: string, tokens: string[], concurrency: number) {
  const url = `${base.replace('http://', 'ws://')}/ws/sync`;
  const opened: ClientSocket[] = [];
  const started = performance.now();
  try {
    await pool(tokens.length, concurrency, async (i) => {
      opened[i] = await open(url, tokens[i]!, i);
    });
  } catch (err) {
    closeSockets(opened.filter(Boolean));
    throw err;
  }
  return { sockets: opened, ms: performance.now() - started };
}

export function closeSockets(sockets: ClientSocket[]): void {
  for (const s of sockets) s.ws.terminate();
}
